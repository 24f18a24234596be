import { useId } from 'react';
import { formatDate } from '../../lib/format';
import type { Review } from '../../lib/platform/model';

const titles = {
  pending: 'Waiting for review',
  approved: 'Approved',
  rejected: 'Not approved',
} as const;

/**
 * Where an accreditation stands, for its investor: waiting, approved or not, with the reviewer's note
 * and when; after a rejection, what to do next. `forInvestor` words it to the person it is about.
 */
export function ReviewStatus({ review, forInvestor }: { review: Review; forInvestor: boolean }) {
  // Several statuses share a page in the admins' "Decided" list: each heading its own id.
  const titleId = useId();
  const when = review.decidedAt ? formatDate(review.decidedAt) : undefined;
  const by = review.decidedBy ? ` by ${review.decidedBy}` : '';
  const tone =
    review.status === 'rejected' ? 'notice-warning' : review.status === 'approved' ? 'notice-success' : '';
  return (
    <section className={`notice review-status ${tone}`} aria-labelledby={titleId}>
      <h2 id={titleId}>
        <span className="visually-hidden">Review: </span>
        {titles[review.status]}
      </h2>
      {review.status === 'pending' && (
        <p>
          {forInvestor
            ? 'An admin will look at your documents. You can still add or change them.'
            : 'No decision yet.'}
        </p>
      )}
      {review.status !== 'pending' && (when || by) && (
        <p>
          Decided{by}
          {when ? ` on ${when}` : ''}.
        </p>
      )}
      {review.note && (
        <blockquote className="review-note">
          <p>{review.note}</p>
        </blockquote>
      )}
      {review.status === 'rejected' && forInvestor && (
        <p>
          <strong>What to do next:</strong> upload the missing or corrected document below. Your accreditation
          then goes back to the review queue.
        </p>
      )}
    </section>
  );
}
