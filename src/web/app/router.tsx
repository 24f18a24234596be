import type { ComponentType } from 'react';
import { createBrowserRouter, redirect, type LoaderFunctionArgs, type RouteObject } from 'react-router';
import type { FirstResponses } from '../lib/platform/first-responses';
import { SignInError, type SignInFailure } from '../lib/session';
import type { Services } from '../lib/services';
import { Loading } from '../components/ui/status';
import { CallbackPage } from './routes/callback-page';
import { HomePage } from './routes/home-page';
import { Layout } from './routes/layout';
import { startEntityPageReads, startOfferingsPageReads, startReviewPageReads } from './page-reads';
import { NotFoundPage } from './routes/not-found-page';
import { RouteError } from './routes/route-error';

export interface CallbackData {
  failure: SignInFailure;
}

/**
 * The code of each signed-in page beyond the first, in a chunk of its own (performance.md W1): the first
 * page carries no upload, crop or review code (W2). Loaded as the router goes there, alongside the page's
 * loader, which meanwhile starts the page's reads (page-reads.ts).
 */
export const pageCode: Record<
  'review' | 'offerings' | 'entity',
  () => Promise<{ Component: ComponentType }>
> = {
  review: async () => ({ Component: (await import('./routes/review-page')).ReviewPage }),
  offerings: async () => ({ Component: (await import('./routes/offerings-page')).OfferingsPage }),
  entity: async () => ({ Component: (await import('./routes/entity-page')).EntityPage }),
};

export interface AppRouteOptions {
  /** The answers the page's start asked for (app/first-reads.ts), for the first page's reads to take. */
  first?: FirstResponses;
  /** Where each page's code comes from (tests hold it back to see what starts before it). */
  code?: typeof pageCode;
}

export function createAppRouter(services: Services, options: AppRouteOptions = {}) {
  return createBrowserRouter(appRoutes(services, options));
}

/**
 * The loaders that send a visitor to sign in and take them back: the guard of the signed-in pages
 * (with their first reads) and the sign-in callback.
 */
function sessionLoaders(session: Services['session']) {
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

  /** `requireSession`, then the page's first reads, started and not awaited (page-reads.ts). */
  const signedInPage =
    (startReads: (args: LoaderFunctionArgs) => void) =>
    async (args: LoaderFunctionArgs): Promise<null> => {
      await requireSession(args);
      startReads(args);
      return null;
    };

  return { completeSignIn, signedInPage };
}

export function appRoutes(
  services: Services,
  { first, code = pageCode }: AppRouteOptions = {},
): RouteObject[] {
  const { completeSignIn, signedInPage } = sessionLoaders(services.session);

  return [
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
              loader: async () => ({ signedIn: await services.session.isSignedIn() }),
              element: <HomePage />,
            },
            { path: 'auth/callback', loader: completeSignIn, element: <CallbackPage /> },
            {
              path: 'review',
              loader: signedInPage(({ request }) => startReviewPageReads(services, new URL(request.url))),
              lazy: code.review,
            },
            {
              // One segment: never taken for an entity's `:kind/:id`.
              path: 'offerings',
              loader: signedInPage(() => startOfferingsPageReads(services)),
              lazy: code.offerings,
            },
            {
              path: ':kind/:id',
              loader: signedInPage(({ params }) => startEntityPageReads(services, params, first)),
              lazy: code.entity,
            },
            { path: '*', element: <NotFoundPage /> },
          ],
        },
      ],
    },
  ];
}
