import { createBrowserRouter, redirect, type LoaderFunctionArgs } from 'react-router';
import { SignInError, type SignInFailure } from '../lib/session';
import type { Services } from '../lib/services';
import { Loading } from '../components/ui/status';
import { CallbackPage } from './routes/callback-page';
import { HomePage } from './routes/home-page';
import { Layout } from './routes/layout';
import { NotFoundPage } from './routes/not-found-page';
import { RouteError } from './routes/route-error';

export interface CallbackData {
  failure: SignInFailure;
}

export function createAppRouter({ session }: Services) {
  /**
   * Guard for pages that need a session: a signed-out visitor goes to sign in and comes back here. The
   * promise never settles because the browser is leaving for the sign-in page.
   */
  async function requireSession({ request }: LoaderFunctionArgs) {
    if (await session.isSignedIn()) return null;
    const url = new URL(request.url);
    await session.signIn(url.pathname + url.search);
    return new Promise<never>(() => {});
  }

  async function completeSignIn({ request }: LoaderFunctionArgs): Promise<CallbackData | Response> {
    const url = new URL(request.url);
    if (!url.searchParams.has('code') && !url.searchParams.has('error')) return redirect('/');
    // The code and state leave the address bar and the history at once, so the callback cannot be
    // replayed from there or leak through a shared screen (P6).
    window.history.replaceState(window.history.state, '', url.pathname);
    try {
      const { returnTo } = await session.completeSignIn(url.href);
      return redirect(returnTo);
    } catch (error) {
      return { failure: error instanceof SignInError ? error.reason : 'other' };
    }
  }

  return createBrowserRouter([
    {
      path: '/',
      element: <Layout />,
      errorElement: <RouteError />,
      // Shown while the first page's loader checks the session.
      hydrateFallbackElement: <Loading label="Loading…" />,
      children: [
        {
          errorElement: <RouteError />,
          children: [
            {
              index: true,
              loader: async () => ({ signedIn: await session.isSignedIn() }),
              element: <HomePage />,
            },
            { path: 'auth/callback', loader: completeSignIn, element: <CallbackPage /> },
            {
              path: 'review',
              loader: requireSession,
              lazy: async () => ({ Component: (await import('./routes/review-page')).ReviewPage }),
            },
            {
              // One segment: never taken for an entity's `:kind/:id`.
              path: 'offerings',
              loader: requireSession,
              // Its own chunk, like every signed-in page beyond the first (performance.md W1).
              lazy: async () => ({ Component: (await import('./routes/offerings-page')).OfferingsPage }),
            },
            {
              path: ':kind/:id',
              loader: requireSession,
              // Its own chunk: the first page carries no upload or crop code (performance.md W1, W2).
              lazy: async () => ({ Component: (await import('./routes/entity-page')).EntityPage }),
            },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ]);
}
