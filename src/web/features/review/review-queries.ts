import { infiniteQueryOptions, queryOptions, useQueryClient } from '@tanstack/react-query';
import { createDeferredActions } from '../../lib/deferred-actions';
import { ApiError, messageOf } from '../../lib/platform/errors';
import type { AccreditationForReview, RejectionReason, Review } from '../../lib/platform/model';
import type { Platform } from '../../lib/platform/platform';
import { useServices } from '../../lib/services';
import { statusWords } from './review-words';

export const reviewKeys = {
  all: ['review'] as const,
  list: (which: 'pending' | 'decided', search = '') => [...reviewKeys.all, which, search] as const,
  counts: () => [...reviewKeys.all, 'counts'] as const,
  history: (accreditationId: number) => [...reviewKeys.all, 'history', accreditationId] as const,
};

/** A paged list, one "Show more" at a time. */
const paged = <T, P extends { items: T[]; next?: string }>(
  queryKey: readonly unknown[],
  load: (cursor: string | undefined) => Promise<P>,
) =>
  infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam }) => load(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next,
  });

/** The list `/review` shows, as its address says: the queue, or `?show=decided`; `?q=` narrows either. */
export function reviewListAt(params: URLSearchParams): { which: 'pending' | 'decided'; search: string } {
  return {
    which: params.get('show') === 'decided' ? 'decided' : 'pending',
    search: params.get('q')?.trim() ?? '',
  };
}

export const reviewListQuery = (platform: Platform, which: 'pending' | 'decided', search = '') => ({
  ...paged(reviewKeys.list(which, search), (cursor) =>
    platform.reviewList(which, cursor, search || undefined),
  ),
  // The page's loader reads the list afresh on every visit, tab and search (app/page-reads.ts): fresh
  // for a few seconds, that answer is not read again the moment the page shows it. A decision reads it
  // again.
  staleTime: 5_000,
});

/** How many wait (and how many are decided), for the admin's home: one small read of the queue. */
export const reviewCountsQuery = (platform: Platform) =>
  queryOptions({
    queryKey: reviewKeys.counts(),
    queryFn: async () => (await platform.reviewList('pending')).counts ?? null,
  });

export const historyQuery = (platform: Platform, accreditationId: number) =>
  paged(reviewKeys.history(accreditationId), (cursor) => platform.history(accreditationId, cursor));

/** What a decision form decides on: the queue's item, or the accreditation's own page. */
export type Decidable = Pick<AccreditationForReview, 'id' | 'name' | 'etag'>;

export interface Decision {
  accreditation: Decidable;
  status: 'approved' | 'rejected';
  reason?: RejectionReason;
  note: string;
}

/**
 * Decisions in their undo window: the investor learns nothing until it has passed, so "Undo" really
 * takes a decision back, on any platform.
 */
export const waitingDecisions = createDeferredActions<Decision>();
export const decisionKey = (accreditationId: number) => `accreditation:${accreditationId}`;

/** "Ada Admin approved it meanwhile": what the accreditation says now, read again after a 412. */
export function whatHappenedMeanwhile(review: Review | undefined): string {
  if (!review) return 'It changed meanwhile.';
  const decided = review.status === 'approved' || review.status === 'rejected';
  if (decided)
    return `${review.decidedBy ?? 'Another admin'} ${review.status === 'approved' ? 'approved' : 'rejected'} it meanwhile.`;
  return `It changed meanwhile (now: ${statusWords[review.status]}); look at it again before deciding.`;
}

export function useDecide() {
  const { platform } = useServices();
  const queryClient = useQueryClient();
  return (decision: Decision, onSent: () => void) =>
    waitingDecisions.later(decisionKey(decision.accreditation.id), decision, async ({ leavingPage }) => {
      const { accreditation, status, note, reason } = decision;
      try {
        // If-Match: a decision made on a page that went stale (decided by someone else, or reopened by
        // the investor's new upload) is refused, not laid over the other change.
        await platform.review(
          accreditation.id,
          { status, note, ...(reason ? { reason } : {}) },
          { keepalive: leavingPage, etag: accreditation.etag },
        );
      } catch (error) {
        throw new Error(
          `The decision on ${accreditation.name} was not recorded: ${await refusal(error, accreditation.id)}`,
        );
      } finally {
        // Whatever happened, the lists and the accreditation are read again: after a 412 they show
        // what it is now.
        void queryClient.invalidateQueries({ queryKey: reviewKeys.all });
        void queryClient.invalidateQueries({ queryKey: ['entities'] });
      }
      onSent();
    });

  /** The platform's refusal in words; after a 412, who decided meanwhile (the accreditation re-read). */
  async function refusal(error: unknown, id: number): Promise<string> {
    if (!(error instanceof ApiError) || error.status !== 412) return messageOf(error);
    const now = await platform.entityFiles({ type: 'Accreditation', id }).catch(() => undefined);
    return whatHappenedMeanwhile(now?.review);
  }
}
