import type { ReviewStatus } from '../../lib/platform/model';
import { statusWords } from './review-words';

/**
 * Where an accreditation's review stands, in a word or three, beside its name in a list. The
 * accreditation's own page says the rest: the reviewer's reason and note, when, and what to do next.
 */
export function ReviewBadge({ status }: { status: ReviewStatus }) {
  return (
    <span className={`badge review-badge review-badge-${status}`}>
      <span className="visually-hidden">Review: </span>
      {statusWords[status]}
    </span>
  );
}
