import { infiniteQueryOptions, useQueryClient } from '@tanstack/react-query';
import { createDeferredActions } from '../../lib/deferred-actions';
import { messageOf } from '../../lib/platform/errors';
import type { AccreditationForReview } from '../../lib/platform/model';
import type { Platform } from '../../lib/platform/platform';
import { useServices } from '../../lib/services';

export const reviewKeys = {
  all: ['review'] as const,
  list: (which: 'pending' | 'decided') => [...reviewKeys.all, which] as const,
  history: (accreditationId: number) => [...reviewKeys.all, 'history', accreditationId] as const,
};

/** A paged list, one "Show more" at a time. */
const paged = <T>(
  queryKey: readonly unknown[],
  load: (cursor: string | undefined) => Promise<{ items: T[]; next?: string }>,
) =>
  infiniteQueryOptions({
    queryKey,
    queryFn: ({ pageParam }) => load(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next,
  });

export const reviewListQuery = (platform: Platform, which: 'pending' | 'decided') =>
  paged(reviewKeys.list(which), (cursor) => platform.reviewList(which, cursor));

export const historyQuery = (platform: Platform, accreditationId: number) =>
  paged(reviewKeys.history(accreditationId), (cursor) => platform.history(accreditationId, cursor));

export interface Decision {
  accreditation: AccreditationForReview;
  status: 'approved' | 'rejected';
  note: string;
}

/**
 * Decisions in their undo window: the investor learns nothing until it has passed, so "Undo" really
 * takes a decision back, on any platform.
 */
export const waitingDecisions = createDeferredActions<Decision>();
export const decisionKey = (accreditationId: number) => `accreditation:${accreditationId}`;

export function useDecide() {
  const { platform } = useServices();
  const queryClient = useQueryClient();
  return (decision: Decision, onSent: () => void) =>
    waitingDecisions.later(decisionKey(decision.accreditation.id), decision, async ({ leavingPage }) => {
      const { accreditation, status, note } = decision;
      try {
        // If-Match: a decision made on a page that went stale (decided by someone else, or reopened by
        // the investor's new upload) is refused, not laid over the other change.
        await platform.review(
          accreditation.id,
          { status, note },
          { keepalive: leavingPage, etag: accreditation.etag },
        );
      } catch (error) {
        throw new Error(`The decision on ${accreditation.name} was not recorded: ${messageOf(error)}`);
      }
      onSent();
      // The notice ends as soon as the platform has the decision; the lists catch up on their own.
      void queryClient.invalidateQueries({ queryKey: reviewKeys.all });
    });
}
