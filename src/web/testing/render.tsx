import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, renderHook } from '@testing-library/react';
import type { ReactNode } from 'react';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router';
import type { AppConfig } from '../../shared/api/app-config';
import { ServicesContext, type Services } from '../lib/services';
import { Session } from '../lib/session';
import { platformFor, testConfig } from './platform-double';

/** The app's services over MSW, as main.tsx builds them, with a real Session on the test's config. */
export function testServices(config: AppConfig = testConfig()): Services {
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: false }, mutations: { retry: false } },
  });
  const session = new Session(config);
  const { platform } = platformFor(config, {
    accessToken: async () => 'token-1',
    renew: async () => ({ access_token: 'token-2' }),
  });
  return { config, session, platform, queryClient };
}

function Providers({ services, children }: { services: Services; children: ReactNode }) {
  return (
    <ServicesContext value={services}>
      <QueryClientProvider client={services.queryClient}>{children}</QueryClientProvider>
    </ServicesContext>
  );
}

export function renderHookWith<T>(hook: () => T, services = testServices()) {
  return {
    services,
    ...renderHook(hook, { wrapper: ({ children }) => <Providers services={services}>{children}</Providers> }),
  };
}

/** A component as the app draws it: with its services (over MSW) and TanStack Query. */
export function renderWithServices(ui: ReactNode, services = testServices()) {
  return { services, ...render(<Providers services={services}>{ui}</Providers>) };
}

/** Pages at an address, in a memory router with the given routes. */
export function renderRoutes(routes: RouteObject[], path: string, services = testServices()) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  return {
    services,
    router,
    ...render(
      <Providers services={services}>
        <RouterProvider router={router} />
      </Providers>,
    ),
  };
}
