import { useId, useRef, useState, type ReactNode } from 'react';
import { useDraft } from '../../lib/drafts';
import { formatRelative } from '../../lib/format';
import type { AccreditationForReview, RejectionReason } from '../../lib/platform/model';
import { useDecide, type Decidable } from './review-queries';
import { reasonLabels, reasons } from './review-words';

/** "unreadable" when the photo check flagged any of its files (issue 31), else no suggestion. */
export const flaggedReason = (
  accreditation: Pick<AccreditationForReview, 'files'>,
): RejectionReason | undefined =>
  accreditation.files.some((file) => (file.qualityIssues?.length ?? 0) > 0) ? 'unreadable' : undefined;

/** Why a rejection cannot be sent yet, or null when it can. */
function rejectionProblem(reason: RejectionReason | null, note: string): string | null {
  if (!reason) return 'Choose why it is rejected: the investor is told the reason.';
  if (reason === 'other' && !note) return 'Say in the note what is wrong: the reason is “Other”.';
  return null;
}

/**
 * Approve, or reject with a reason and a note for the investor. "Reject" first asks for the reason
 * (a choice of the common ones); without one it says so and sends nothing. The same form sits under
 * the documents in the queue, beside a document in the viewer and on the accreditation's own page;
 * all show the same note (a shared draft, kept through a re-sign-in). `onDecided` runs once the
 * decision waits out its undo window (the queue moves focus on).
 */
export function DecisionForm({
  accreditation,
  onDecided,
  suggestedReason,
}: {
  accreditation: Decidable;
  onDecided?: () => void;
  /**
   * The reason chosen when "Reject" is first pressed, for the reviewer to keep or change: "Unreadable
   * or blurry" where the photo check flagged one of its files (issue 31).
   */
  suggestedReason?: RejectionReason;
}) {
  const decide = useDecide();
  const [note, setNote, clearNote] = useDraft(`review-note:${accreditation.id}`, '');
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState<RejectionReason | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const noteId = useId();
  const problemId = useId();
  const reasonsRef = useRef<HTMLFieldSetElement>(null);
  const noteRef = useRef<HTMLTextAreaElement>(null);

  const focusFirstReason = () =>
    requestAnimationFrame(() => reasonsRef.current?.querySelector<HTMLInputElement>('input')?.focus());

  function send(status: 'approved' | 'rejected') {
    const trimmed = note.trim();
    decide(
      { accreditation, status, note: trimmed, ...(status === 'rejected' && reason ? { reason } : {}) },
      clearNote,
    );
    onDecided?.();
  }

  function reject() {
    if (!rejecting) {
      setRejecting(true);
      if (suggestedReason && !reason) setReason(suggestedReason);
      focusFirstReason();
      return;
    }
    const found = rejectionProblem(reason, note.trim());
    setProblem(found);
    if (!found) return send('rejected');
    if (reason) noteRef.current?.focus();
    else focusFirstReason();
  }

  return (
    <form
      className="review-form"
      aria-label={`Decision on ${accreditation.name}`}
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
        if (submitter?.value === 'rejected') reject();
        else if (submitter?.value === 'cancel') {
          setRejecting(false);
          setProblem(null);
        } else send('approved');
      }}
    >
      {rejecting && (
        <fieldset className="reasons" ref={reasonsRef} aria-describedby={problem ? problemId : undefined}>
          <legend>Why is it rejected?</legend>
          {reasons.map((value) => (
            <label key={value} className="reason">
              <input
                type="radio"
                name={`reason-${accreditation.id}`}
                value={value}
                checked={reason === value}
                onChange={() => {
                  setReason(value);
                  setProblem(null);
                }}
              />{' '}
              {reasonLabels[value]}
            </label>
          ))}
        </fieldset>
      )}
      <label htmlFor={noteId}>
        {rejecting ? 'Note to the investor (required for “Other”)' : 'Note to the investor (optional)'}
      </label>
      <textarea
        id={noteId}
        ref={noteRef}
        value={note}
        maxLength={2000}
        rows={3}
        aria-describedby={problem ? problemId : undefined}
        onChange={(e) => setNote(e.target.value)}
      />
      {problem && (
        <p className="field-error" id={problemId} role="alert">
          {problem}
        </p>
      )}
      <div className="dialog-actions">
        {rejecting && (
          <button type="submit" name="decision" value="cancel" className="button">
            Cancel rejection
          </button>
        )}
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

/**
 * One pending accreditation: who sent it and since when, their documents (the route shows them),
 * the decision.
 */
export function ReviewItem({
  accreditation,
  documents,
  onDecided,
}: {
  accreditation: AccreditationForReview;
  documents: ReactNode;
  onDecided?: () => void;
}) {
  const suggestedReason = flaggedReason(accreditation);
  const headingId = useId();
  const submittedAt = accreditation.review?.submittedAt;
  const since = submittedAt ? formatRelative(submittedAt) : undefined;
  return (
    <li className="card" aria-labelledby={headingId} id={`accreditation-${accreditation.id}`}>
      <h2 id={headingId} tabIndex={-1}>
        {accreditation.name}
      </h2>
      <p className="hint">
        From {accreditation.owner.name} ({accreditation.owner.email})
        {since && submittedAt && (
          <>
            {' · '}
            Waiting since <time dateTime={submittedAt}>{since}</time>
          </>
        )}
      </p>
      {documents}
      <DecisionForm accreditation={accreditation} onDecided={onDecided} suggestedReason={suggestedReason} />
    </li>
  );
}
