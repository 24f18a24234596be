import { entityFilesQuery } from '../features/entities/api/queries';
import { offeringsQuery } from '../features/offerings/api/offerings-queries';
import { reviewListAt, reviewListQuery } from '../features/review/review-queries';
import { entityOf } from '../../shared/entities/entity-kinds';
import type { FirstResponses } from '../lib/platform/first-responses';
import type { Services } from '../lib/services';

/**
 * What each signed-in page reads first, started by its route's loader (router.tsx) into TanStack
 * Query's cache, with the same query options as the page's own hooks: the read travels while the
 * page's chunk loads, instead of starting once its component has mounted. The page finds the data, or
 * the read under way, in the cache.
 *
 * Each is started and not awaited: awaiting would hold the navigation (the page before stays, without
 * the new page's skeleton) until the data came. And each is a prefetch, which never throws: every one
 * of these pages says itself what went wrong (an entity not found, a list the platform does not offer,
 * "Try again"), where an `ensureQueryData` that threw would put the route's error page in its place.
 * A read that failed before the page mounted leaves its error in the cache, and the page asks once more.
 *
 * The query modules imported here are small, and the home page and the layout import the entities' and
 * the review's already: the loaders add no page's code to the first chunk (performance.md W1; 0.5 KB
 * gzip in all).
 */

/**
 * `/:kind/:id`: the entity with the first page of its files. `first`: the answers the page's start asked
 * for (app/first-reads.ts), which the first page's read takes rather than asking again; later pages'
 * reads find none there and ask the platform. An address that names no entity reads nothing: the page
 * says it is not found.
 */
export function startEntityPageReads(
  { platform, queryClient }: Services,
  params: { kind?: string; id?: string },
  first?: FirstResponses,
): void {
  const found = entityOf(params.kind ?? '', params.id ?? '');
  if (!found) return;
  void queryClient.prefetchInfiniteQuery(
    entityFilesQuery(platform, { type: found.kind.type, id: found.id }, first),
  );
}

/**
 * `/review`, `?show=decided`, `?q=…`: the list shown, as the page reads the address. Read afresh on every
 * visit and every change of tab or search (each a navigation, so this loader runs), however recently it
 * was read: a queue that other admins and the investors change, which the page read again each time it
 * showed it. The query's few seconds of freshness then keep the page from reading it twice.
 */
export function startReviewPageReads({ platform, queryClient }: Services, url: URL): void {
  const { which, search } = reviewListAt(url.searchParams);
  void queryClient.prefetchInfiniteQuery({ ...reviewListQuery(platform, which, search), staleTime: 0 });
}

/** `/offerings`: the first page of the list. */
export function startOfferingsPageReads({ platform, queryClient }: Services): void {
  void queryClient.prefetchInfiniteQuery(offeringsQuery(platform));
}
