import type { ReviewStatus } from '../../lib/platform/model';

const words: Record<ReviewStatus, string> = {
  pending: 'Waiting for review',
  approved: 'Approved',
  rejected: 'Rejected — needs a new upload',
};

/**
 * Where an accreditation's review stands, in a word or three, beside its name in a list. The
 * accreditation's own page says the rest: the reviewer's note, when, and what to do next.
 */
export function ReviewBadge({ status }: { status: ReviewStatus }) {
  return (
    <span className={`badge review-badge review-badge-${status}`}>
      <span className="visually-hidden">Review: </span>
      {words[status]}
    </span>
  );
}
