import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import type { AppConfig } from '../../shared/api/app-config';
import { CapabilityStore } from '../lib/platform/capabilities';
import { ApiError, NotOffered, SessionEnded } from '../lib/platform/errors';
import type { FirstResponses } from '../lib/platform/first-responses';
import type { PlatformHttp } from '../lib/platform/http';
import { createPlatform } from '../lib/platform/platform';
import { ServicesContext, type Services } from '../lib/services';
import type { Session } from '../lib/session';
import { prefetchFirstPage, routerReady, signInPressedBeforeStart } from './first-paint';
import { createAppRouter } from './router';
import { StartupFailure } from './routes/startup-failure';

/**
 * The app itself, loaded by main.tsx once it has started the session and the first page's reads: React,
 * the router and the pages are most of the code, and the reads need none of it.
 */

const root = () => createRoot(document.getElementById('root')!);

export interface Started {
  config: AppConfig;
  session: Session;
  http: PlatformHttp;
  first: FirstResponses;
}

export async function startApp({ config, session, http, first }: Started): Promise<void> {
  const platform = createPlatform(config, http, new CapabilityStore(config.capabilities));
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx, a missing feature or an ended session will not change by asking again; network
        // trouble and 5xx may.
        retry: (failures, error) =>
          !(error instanceof ApiError && error.status < 500) &&
          !(error instanceof NotOffered) &&
          !(error instanceof SessionEnded) &&
          failures < 2,
      },
    },
  });
  const services: Services = { config, session, platform, queryClient };
  if (await signInPressedBeforeStart(session)) return;
  // The first page's loader starts its reads with the answers main.tsx asked for (page-reads.ts).
  const router = createAppRouter(services, { first });
  // The page painted its shell before this script ran; it stays until the first page is ready.
  await routerReady(router);
  // The first page's queries take the answers main.tsx asked for; later reads ask afresh.
  void prefetchFirstPage(router, services, first);

  root().render(
    <StrictMode>
      <ServicesContext value={services}>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </ServicesContext>
    </StrictMode>,
  );
}

export function showStartupFailure(error: unknown): void {
  root().render(<StartupFailure error={error} />);
}
