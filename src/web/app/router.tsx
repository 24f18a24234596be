import { createBrowserRouter, redirect, type LoaderFunctionArgs } from 'react-router';
import { SignInError, type SignInFailure } from '../lib/session';
import type { Services } from '../lib/services';
import { CallbackPage } from './routes/callback-page';
import { EntityPage } from './routes/entity-page';
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
            { path: ':kind/:id', loader: requireSession, element: <EntityPage /> },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ]);
}
