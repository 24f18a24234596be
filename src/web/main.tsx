import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { prefetchFirstPage, routerReady, signInPressedBeforeStart } from './app/first-paint';
import { createAppRouter } from './app/router';
import { StartupFailure } from './app/routes/startup-failure';
import { loadAppConfig } from './config/app-config';
import { CapabilityStore } from './lib/platform/capabilities';
import { ApiError, NotOffered, SessionEnded } from './lib/platform/errors';
import { createPlatformHttp } from './lib/platform/http';
import { createPlatform } from './lib/platform/platform';
import { ServicesContext, type Services } from './lib/services';
import { Session } from './lib/session';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

async function start() {
  const config = await loadAppConfig();
  const session = new Session(config);
  // A session that cannot be renewed keeps the page and asks the person to sign in again (layout.tsx).
  const http = createPlatformHttp(config, session, () => session.markEnded());
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
  const router = createAppRouter(services);
  // The page painted its shell before this script ran; it stays until the first page is ready.
  await routerReady(router);
  prefetchFirstPage(router, services);

  root.render(
    <StrictMode>
      <ServicesContext value={services}>
        <QueryClientProvider client={queryClient}>
          <RouterProvider router={router} />
        </QueryClientProvider>
      </ServicesContext>
    </StrictMode>,
  );
}

start().catch((error: unknown) => {
  root.render(<StartupFailure error={error} />);
});
