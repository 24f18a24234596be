import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { createAppRouter } from './app/router';
import { StartupFailure } from './app/routes/startup-failure';
import { loadAppConfig } from './config/app-config';
import { createApiClient } from './lib/api-client';
import { ApiError } from './lib/api-error';
import { ServicesContext, type Services } from './lib/services';
import { Session } from './lib/session';
import './styles.css';

const root = createRoot(document.getElementById('root')!);

async function start() {
  const config = await loadAppConfig();
  const session = new Session(config);
  // A session that cannot be renewed sends the user to sign in, and back to the page they were on.
  const api = createApiClient(config, session, () => {
    void session.signIn(window.location.pathname + window.location.search);
  });
  const queryClient = new QueryClient({
    defaultOptions: {
      queries: {
        // A 4xx will not change by asking again; network trouble and 5xx may.
        retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
      },
    },
  });
  const services: Services = { config, session, api, queryClient };
  const router = createAppRouter(services);

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
