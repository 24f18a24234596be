import { useId, type ReactNode } from 'react';
import { useDraft } from '../../lib/drafts';
import type { AccreditationForReview } from '../../lib/platform/model';
import { useDecide } from './review-queries';

/**
 * Approve or reject with a note for the investor. The same form sits under the documents in the queue
 * and beside a document in the viewer; both show the same note (a shared draft, kept through a
 * re-sign-in).
 */
export function DecisionForm({ accreditation }: { accreditation: AccreditationForReview }) {
  const decide = useDecide();
  const [note, setNote, clearNote] = useDraft(`review-note:${accreditation.id}`, '');
  const noteId = useId();
  return (
    <form
      className="review-form"
      onSubmit={(event) => {
        event.preventDefault();
        const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        const status = submitter?.value === 'rejected' ? 'rejected' : 'approved';
        decide({ accreditation, status, note: note.trim() }, clearNote);
      }}
    >
      <label htmlFor={noteId}>Note to the investor (optional)</label>
      <textarea
        id={noteId}
        value={note}
        maxLength={2000}
        rows={3}
        onChange={(e) => setNote(e.target.value)}
      />
      <div className="dialog-actions">
        <button type="submit" name="decision" value="rejected" className="button">
          Reject
        </button>
        <button type="submit" name="decision" value="approved" className="button primary">
          Approve
        </button>
      </div>
    </form>
  );
}

/** One pending accreditation: who sent it, their documents (the route shows them), the decision. */
export function ReviewItem({
  accreditation,
  documents,
}: {
  accreditation: AccreditationForReview;
  documents: ReactNode;
}) {
  const headingId = useId();
  return (
    <li className="card" aria-labelledby={headingId} id={`accreditation-${accreditation.id}`}>
      <h2 id={headingId} tabIndex={-1}>
        {accreditation.name}
      </h2>
      <p className="hint">
        From {accreditation.owner.name} ({accreditation.owner.email})
      </p>
      {documents}
      <DecisionForm accreditation={accreditation} />
    </li>
  );
}
