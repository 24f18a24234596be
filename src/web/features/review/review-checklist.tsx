import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { ApiError, messageOf } from '../../lib/platform/errors';
import type { RequirementKind, Review } from '../../lib/platform/model';
import { useServices } from '../../lib/services';
import { requirementLabel } from './review-words';

/** The platform's 422 on a send, per requirement (`requirements.<kind>`), and anything else apart. */
function refusals(error: unknown): { byKind: Partial<Record<RequirementKind, string>>; other?: string } {
  if (!error) return { byKind: {} };
  const byKind: Partial<Record<RequirementKind, string>> = {};
  if (error instanceof ApiError && error.status === 422) {
    for (const { field, message } of error.fieldErrors) {
      const kind = /^requirements\.(\w+)$/.exec(field)?.[1] as RequirementKind | undefined;
      if (kind) byKind[kind] = message;
    }
    if (Object.keys(byKind).length > 0) return { byKind };
  }
  return { byKind, other: messageOf(error) };
}

/**
 * What an accreditation needs before it can be reviewed, each thing met or not (the platform works it
 * out, so the app and the platform agree), the investor's answer about the address on the licence,
 * and "Send for review" once everything is there. `canEdit`: the owner's controls; an admin reads
 * the list only. `onChanged` reads the accreditation again after a change.
 */
export function ReviewChecklist({
  accreditationId,
  review,
  canEdit,
  onChanged,
}: {
  accreditationId: number;
  review: Review & { requirements: NonNullable<Review['requirements']> };
  canEdit: boolean;
  onChanged: () => Promise<unknown>;
}) {
  const { platform } = useServices();
  const titleId = useId();
  const whyId = useId();
  const options = review.etag ? { etag: review.etag } : {};
  const send = useMutation({
    mutationFn: () => platform.sendForReview(accreditationId, options),
    onSuccess: onChanged,
  });
  const { requirements } = review;
  const unmet = requirements.filter((r) => !r.met);
  const refused = refusals(send.error);
  const sendable = review.status === 'documents_needed';
  const waiting = review.status === 'pending';
  return (
    <section className="card checklist" aria-labelledby={titleId}>
      <h2 id={titleId}>{canEdit ? 'What your accreditation needs' : 'What this accreditation needs'}</h2>
      <RequirementList requirements={requirements} refusedByKind={refused.byKind} />
      {canEdit && (
        <>
          <AddressQuestion
            accreditationId={accreditationId}
            review={review}
            waiting={waiting}
            onChanged={onChanged}
          />
          {sendable && (
            <>
              <button
                type="button"
                className="button primary"
                disabled={unmet.length > 0 || send.isPending}
                aria-describedby={unmet.length > 0 ? whyId : undefined}
                onClick={() => send.mutate()}
              >
                {send.isPending ? 'Sending…' : 'Send for review'}
              </button>
              {unmet.length > 0 && (
                <p className="hint" id={whyId}>
                  Upload what is missing first: {unmet.map((r) => requirementLabel(r)).join('; ')}.
                </p>
              )}
            </>
          )}
          {send.isError && (
            <p className="field-error" role="alert">
              {refused.other ??
                'It was not sent: the platform says something is still missing (marked above).'}
            </p>
          )}
        </>
      )}
    </section>
  );
}

/** Each thing needed, done or missing, with the platform's word where it refused a send for it. */
function RequirementList({
  requirements,
  refusedByKind,
}: {
  requirements: NonNullable<Review['requirements']>;
  refusedByKind: ReturnType<typeof refusals>['byKind'];
}) {
  return (
    <ul className="requirements">
      {requirements.map((requirement) => (
        <li key={requirement.kind} className={requirement.met ? 'met' : 'unmet'}>
          <span className={`badge ${requirement.met ? 'badge-met' : 'badge-unmet'}`}>
            {requirement.met ? 'Done' : 'Missing'}
          </span>{' '}
          {requirementLabel(requirement)}
          {refusedByKind[requirement.kind] && (
            <span className="field-error"> {refusedByKind[requirement.kind]}</span>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The investor's answer about the address on the licence, which changes what is needed. */
function AddressQuestion({
  accreditationId,
  review,
  waiting,
  onChanged,
}: {
  accreditationId: number;
  review: Review;
  waiting: boolean;
  onChanged: () => Promise<unknown>;
}) {
  const { platform } = useServices();
  const addressHintId = useId();
  const options = review.etag ? { etag: review.etag } : {};
  const address = useMutation({
    mutationFn: (onLicence: boolean) => platform.setAddressOnLicence(accreditationId, onLicence, options),
    onSettled: onChanged,
  });
  // The answer shows at the click; the platform's takes over once the accreditation is read again
  // (the mutation's onSettled waits for that read).
  const [ticked, setTicked] = useState<boolean | null>(null);
  return (
    <>
      <label className="check">
        <input
          type="checkbox"
          checked={ticked ?? review.addressOnLicence === false}
          // While it waits for a decision what it needs is fixed (the platform refuses: 409).
          disabled={address.isPending || waiting}
          aria-describedby={addressHintId}
          onChange={(event) => {
            const lacksAddress = event.target.checked;
            setTicked(lacksAddress);
            address.mutate(!lacksAddress, { onSettled: () => setTicked(null) });
          }}
        />{' '}
        My licence does not show my current address
      </label>
      <p className="hint" id={addressHintId}>
        {waiting
          ? 'This cannot change while your accreditation waits for review.'
          : 'Then a utility bill in your name shows where you live.'}
      </p>
      {address.error && (
        <p className="field-error" role="alert">
          Your answer was not saved: {messageOf(address.error)}
        </p>
      )}
    </>
  );
}
