import type { DataRouter } from 'react-router';
import { accountQuery, entityKeys } from '../features/entities/api/queries';
import { entityAt } from '../../shared/entities/entity-kinds';
import type { FirstResponses } from '../lib/platform/first-responses';
import type { Services } from '../lib/services';
import type { Session } from '../lib/session';
import { signInParameter } from '../../shared/api/proxy';

/**
 * How the app takes over from the page the proxy painted before any script ran (index.html's shell,
 * src/proxy/index-page.ts): the landing, or the header with a loading status.
 */

/**
 * Carries out a "Sign in" pressed before the app had loaded: the form reloaded `/` asking for it, and
 * the page shows it on its way. True when the browser is now leaving for the sign-in page; false when
 * there is nothing to do (or the person turned out to be signed in already), and the app starts as usual.
 * Runs before the router reads the address, which it leaves without the request.
 */
export async function signInPressedBeforeStart(session: Session): Promise<boolean> {
  const url = new URL(window.location.href);
  if (url.pathname !== '/' || !url.searchParams.has(signInParameter)) return false;
  url.searchParams.delete(signInParameter);
  window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
  if (await session.isSignedIn()) return false;
  try {
    await session.signIn('/');
    // Back from the sign-in page, a browser may show this page as it was left (its back/forward
    // cache), with the button still on its way and no app behind it: start afresh instead.
    window.addEventListener('pageshow', (event) => {
      if (event.persisted) window.location.reload();
    });
    return true;
  } catch {
    // The landing the app renders offers the button again.
    return false;
  }
}

/**
 * Settles once the first page's loaders (the session check, the page's own code) are done. The app
 * renders only then: until that moment the painted shell is what the person sees, and it stays put
 * instead of giving way to a bare loading line and coming back (a flash and a layout shift).
 */
export function routerReady(router: DataRouter): Promise<void> {
  if (router.state.initialized) return Promise.resolve();
  return new Promise((resolve) => {
    const stop = router.subscribe((state) => {
      if (!state.initialized) return;
      stop();
      resolve();
    });
  });
}

/**
 * Puts the first page's data into the query cache as soon as the session is known, its reads taking the
 * answers main.tsx asked for as the page started (`first`; first-reads.ts names the same reads), so the
 * data travels while React draws the page (on a throttled phone that first render takes as long as a
 * round trip or two) and nothing is asked twice. The account (the user menu's, on every signed-in page)
 * starts here; an entity page's loader has started the entity's read already (page-reads.ts). The page's components find the data, or the read under
 * way, in the cache. Settles once the first page has its data (or has failed to get it); answers it did
 * not take are then dropped.
 */
export async function prefetchFirstPage(
  router: DataRouter,
  { session, platform, queryClient }: Services,
  first: FirstResponses,
): Promise<void> {
  try {
    if (!session.signedIn) return;
    // Every signed-in page shows the user menu, which reads the account (and the home page lists it).
    const account = queryClient.prefetchQuery(accountQuery(platform, first));
    // An entity page's loader started the entity's read, which took its answer from `first`: waited
    // for here, not asked again (a read that failed is asked again by the page, which says why).
    const entity = entityAt(router.state.location.pathname);
    const entityRead =
      entity &&
      queryClient
        .getQueryCache()
        .find({ queryKey: entityKeys.files({ type: entity.kind.type, id: entity.id }), exact: true })
        ?.promise?.catch(() => undefined);
    await Promise.all([account, entityRead]);
  } finally {
    first.drop();
  }
}
