import { ApiError, messageOf } from '../../../lib/platform/errors';
import type { FileChanges } from '../../../lib/platform/model';

/** What a change was, in words: "rename to “deck v2.pdf”", "crop". */
function changeWords(changes: FileChanges): string {
  if (changes.name !== undefined) return `rename to “${changes.name}”`;
  if (changes.private !== undefined) return changes.private ? 'change to private' : 'change to visible';
  return 'crop';
}

/**
 * A change the platform did not make. Changed elsewhere meanwhile (412): the card already shows the
 * file as it is now (useUpdateFile read it again), and the change can be applied to that version.
 * Anything else: the change was rolled back, with the reason.
 */
export function ChangeNotSaved({
  error,
  changes,
  onApplyAgain,
}: {
  error: Error;
  changes: FileChanges;
  onApplyAgain: () => void;
}) {
  if (!(error instanceof ApiError && error.status === 412))
    return (
      <p className="field-error" role="alert">
        The change was undone: {messageOf(error)}
      </p>
    );
  return (
    <div className="field-error" role="alert">
      <p>Changed elsewhere — your {changeWords(changes)} was not saved. This is the file as it is now.</p>
      <button type="button" className="button small" onClick={onApplyAgain}>
        Apply my {changes.name !== undefined ? 'rename' : 'change'} again
      </button>
    </div>
  );
}
