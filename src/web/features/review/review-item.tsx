import { type ReactNode, type RefObject, useId, useRef, useState } from 'react';
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
export function DecisionForm({ accreditation, onDecided, suggestedReason }: DecisionFormProps) {
  const decide = useDecide();
  const [note, setNote, clearNote] = useDraft(`review-note:${accreditation.id}`, '');
  const [rejecting, setRejecting] = useState(false);
  const [reason, setReason] = useState<RejectionReason | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
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
        <ReasonChoice
          fieldsetRef={reasonsRef}
          name={`reason-${accreditation.id}`}
          reason={reason}
          describedBy={problem ? problemId : undefined}
          onChoose={(value) => {
            setReason(value);
            setProblem(null);
          }}
        />
      )}
      <NoteField
        textareaRef={noteRef}
        required={rejecting}
        note={note}
        onNote={setNote}
        problem={problem}
        problemId={problemId}
      />
      <DecisionButtons rejecting={rejecting} />
    </form>
  );
}

interface DecisionFormProps {
  accreditation: Decidable;
  onDecided?: () => void;
  /**
   * The reason chosen when "Reject" is first pressed, for the reviewer to keep or change: "Unreadable
   * or blurry" where the photo check flagged one of its files (issue 31).
   */
  suggestedReason?: RejectionReason;
}

/** The note to the investor, and what is wrong with the decision as it stands. */
function NoteField({
  textareaRef,
  required,
  note,
  onNote,
  problem,
  problemId,
}: {
  textareaRef: RefObject<HTMLTextAreaElement | null>;
  /** Rejecting: a note is needed for "Other". */
  required: boolean;
  note: string;
  onNote: (note: string) => void;
  problem: string | null;
  problemId: string;
}) {
  const noteId = useId();
  return (
    <>
      <label htmlFor={noteId}>
        {required ? 'Note to the investor (required for “Other”)' : 'Note to the investor (optional)'}
      </label>
      <textarea
        id={noteId}
        ref={textareaRef}
        value={note}
        maxLength={2000}
        rows={3}
        aria-describedby={problem ? problemId : undefined}
        onChange={(e) => onNote(e.target.value)}
      />
      {problem && (
        <p className="field-error" id={problemId} role="alert">
          {problem}
        </p>
      )}
    </>
  );
}

/** The common reasons for a rejection, one to choose. */
function ReasonChoice({
  fieldsetRef,
  name,
  reason,
  describedBy,
  onChoose,
}: {
  fieldsetRef: RefObject<HTMLFieldSetElement | null>;
  name: string;
  reason: RejectionReason | null;
  describedBy: string | undefined;
  onChoose: (reason: RejectionReason) => void;
}) {
  return (
    <fieldset className="reasons" ref={fieldsetRef} aria-describedby={describedBy}>
      <legend>Why is it rejected?</legend>
      {reasons.map((value) => (
        <label key={value} className="reason">
          <input
            type="radio"
            name={name}
            value={value}
            checked={reason === value}
            onChange={() => onChoose(value)}
          />{' '}
          {reasonLabels[value]}
        </label>
      ))}
    </fieldset>
  );
}

/** The form's submit buttons: the one pressed says what the form does (DecisionForm's onSubmit). */
function DecisionButtons({ rejecting }: { rejecting: boolean }) {
  return (
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
