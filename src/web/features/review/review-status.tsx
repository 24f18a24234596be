import { useId } from 'react';
import { formatDate } from '../../lib/format';
import type { Review } from '../../lib/platform/model';
import { reasonAdvice, reasonLabels, statusWords } from './review-words';

/** What waiting means, to the person it is about and to an admin. */
function waitingWords(review: Review, forInvestor: boolean): string | null {
  if (review.status === 'pending')
    return forInvestor
      ? 'An admin will look at your documents. You can still add documents.'
      : 'No decision yet.';
  if (review.status === 'documents_needed')
    return forInvestor
      ? 'Upload the documents listed below, then send your accreditation for review.'
      : 'The investor has not sent it for review yet.';
  return null;
}

/**
 * Where an accreditation stands: documents needed, waiting, approved or rejected, with the reviewer's
 * reason and note and when; after a rejection, what was wrong and what to do, in plain words. The
 * reason stays readable after the investor has uploaded again (the last decision's). `forInvestor`
 * words it to the person it is about.
 */
export function ReviewStatus({ review, forInvestor }: { review: Review; forInvestor: boolean }) {
  // Several statuses share a page in the admins' "Decided" list: each heading its own id.
  const titleId = useId();
  const decided = review.status === 'approved' || review.status === 'rejected';
  const when = review.decidedAt ? formatDate(review.decidedAt) : undefined;
  const by = review.decidedBy ? ` by ${review.decidedBy}` : '';
  const tone =
    review.status === 'rejected' ? 'notice-warning' : review.status === 'approved' ? 'notice-success' : '';
  // The rejection to explain: the current one, or the last one while the investor answers it.
  const rejection =
    review.status === 'rejected'
      ? { reason: review.reason, note: review.note }
      : review.status === 'documents_needed' && review.lastDecision?.status === 'rejected'
        ? { reason: review.lastDecision.reason, note: review.lastDecision.note }
        : undefined;
  const waiting = waitingWords(review, forInvestor);
  return (
    <section className={`notice review-status ${tone}`} aria-labelledby={titleId}>
      <h2 id={titleId}>
        <span className="visually-hidden">Review: </span>
        {statusWords[review.status]}
      </h2>
      {waiting && <p>{waiting}</p>}
      {decided && (when || by) && (
        <p>
          Decided{by}
          {when ? ` on ${when}` : ''}.
        </p>
      )}
      {rejection && review.status !== 'rejected' && <p>The last review rejected it:</p>}
      {rejection?.reason && (
        <p className="review-reason">
          {forInvestor ? reasonAdvice[rejection.reason] : `Reason: ${reasonLabels[rejection.reason]}.`}
        </p>
      )}
      {(rejection ? rejection.note : review.note) && (
        <blockquote className="review-note">
          <p>{rejection ? rejection.note : review.note}</p>
        </blockquote>
      )}
      {review.status === 'rejected' && forInvestor && (
        <p>
          <strong>What to do next:</strong>{' '}
          {review.requirements
            ? 'upload the corrected document below (the rejected files are kept as evidence), then send your accreditation for review again.'
            : 'upload the missing or corrected document below. Your accreditation then goes back to the review queue.'}
        </p>
      )}
    </section>
  );
}
