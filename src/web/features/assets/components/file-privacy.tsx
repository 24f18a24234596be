import { useId, useState } from 'react';
import type { FileChanges, StoredFile } from '../../../lib/platform/model';
import { audienceOf, privacyMatters } from '../audience';
import { usePrivacyWarning } from '../privacy-warnings';

/**
 * A file's privacy on its card: a warning when the platform left visible a file that should be
 * private (with "Make it private"), then who sees it and, for whoever may change it, the switch.
 */
export function FilePrivacy({
  file,
  canEdit,
  busy,
  change,
}: {
  file: StoredFile;
  canEdit: boolean;
  /** A change of the file is under way: "Make it private" waits. */
  busy: boolean;
  change: (changes: FileChanges, onSettled?: () => void) => void;
}) {
  const exposed = usePrivacyWarning(file.id) && !file.private;
  return (
    <>
      {exposed && (
        <PrivacyNotApplied file={file} busy={busy} onMakePrivate={() => change({ private: true })} />
      )}
      <WhoSees
        file={file}
        canEdit={canEdit}
        onChange={(wanted, settled) => change({ private: wanted }, settled)}
      />
    </>
  );
}

/**
 * Who sees the file. Where privacy matters and the person may change it: a Private switch with who
 * sees the file under it. Elsewhere: who sees it, in words.
 */
function WhoSees({
  file,
  canEdit,
  onChange,
}: {
  file: StoredFile;
  canEdit: boolean;
  /** Asks for the change; `settled` follows once the platform has answered. */
  onChange: (wanted: boolean, settled: () => void) => void;
}) {
  // The switch follows the click at once, before the cache's optimistic update lands a tick later.
  const [pending, setPending] = useState<boolean | null>(null);
  const isPrivate = pending ?? file.private;
  const switchId = useId();
  const audienceId = useId();
  if (!(canEdit && privacyMatters(file.entity.type)))
    return <p className="hint">{audienceOf(file.entity.type, file.private, canEdit)}</p>;
  return (
    <div className="private-toggle">
      <input
        type="checkbox"
        role="switch"
        id={switchId}
        checked={isPrivate}
        aria-describedby={audienceId}
        onChange={(event) => {
          const wanted = event.target.checked;
          setPending(wanted);
          onChange(wanted, () => setPending(null));
        }}
      />
      <label htmlFor={switchId}>Private</label>
      <p id={audienceId} className="hint">
        {audienceOf(file.entity.type, isPrivate)}
      </p>
    </div>
  );
}

/** A file that should be private but that the platform left visible to others (C3), and the way out. */
function PrivacyNotApplied({
  file,
  busy,
  onMakePrivate,
}: {
  file: StoredFile;
  busy: boolean;
  onMakePrivate: () => void;
}) {
  return (
    <div className="notice notice-warning" role="alert">
      <p>Visible to others: this file should be private, but the platform did not make it private.</p>
      <button type="button" className="button small" disabled={busy} onClick={onMakePrivate}>
        Make it private<span className="visually-hidden"> ({file.name})</span>
      </button>
    </div>
  );
}
