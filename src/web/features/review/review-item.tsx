import { useId, useState, type ReactNode } from 'react';
import { messageOf } from '../../lib/api-error';
import type { AccreditationForReview } from '../../lib/platform-api';
import { useReviewDecision } from './review-queries';

/**
 * One pending accreditation: who sent it, their documents (shown by the route with the assets
 * feature's cards), and approve or reject with a note for the investor.
 */
export function ReviewItem({
  accreditation,
  documents,
}: {
  accreditation: AccreditationForReview;
  documents: ReactNode;
}) {
  const decide = useReviewDecision();
  const [note, setNote] = useState('');
  const noteId = useId();
  const headingId = useId();
  return (
    <li className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{accreditation.name}</h2>
      <p className="hint">
        From {accreditation.owner.name} ({accreditation.owner.email})
      </p>
      {documents}
      <form
        className="review-form"
        onSubmit={(event) => {
          event.preventDefault();
          const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
          const status = submitter?.value === 'rejected' ? 'rejected' : 'approved';
          decide.mutate({ id: accreditation.id, status, note: note.trim() });
        }}
      >
        <label htmlFor={noteId}>Note to the investor (optional)</label>
        <textarea
          id={noteId}
          value={note}
          maxLength={2000}
          rows={2}
          onChange={(e) => setNote(e.target.value)}
        />
        {decide.error && (
          <p className="field-error" role="alert">
            Not recorded: {messageOf(decide.error)}
          </p>
        )}
        <div className="dialog-actions">
          <button
            type="submit"
            name="decision"
            value="rejected"
            className="button"
            disabled={decide.isPending}
          >
            Reject
          </button>
          <button
            type="submit"
            name="decision"
            value="approved"
            className="button primary"
            disabled={decide.isPending}
          >
            Approve
          </button>
        </div>
      </form>
    </li>
  );
}
