import { useId } from 'react';
import { useDraft } from '../../../lib/drafts';
import type { StoredFile } from '../../../lib/platform/model';

/** The draft a rename is kept in: a card whose file has one opens with its form. */
export const renameDraft = (file: StoredFile) => `rename:${file.id}`;

/**
 * A file's new name. Save sends it when it differs from the name now (spaces trimmed); Cancel or
 * Escape closes the form. `onDone` follows either way.
 */
export function RenameForm({
  file,
  onRename,
  onDone,
}: {
  file: StoredFile;
  onRename: (name: string) => void;
  onDone: () => void;
}) {
  // Kept through a re-sign-in: a session that ends mid-rename does not lose the new name.
  const [name, setName, clearDraft] = useDraft(renameDraft(file), file.name);
  const inputId = useId();
  const finish = () => {
    clearDraft();
    onDone();
  };
  return (
    <form
      className="rename"
      onSubmit={(event) => {
        event.preventDefault();
        const trimmed = name.trim();
        if (trimmed && trimmed !== file.name) onRename(trimmed);
        finish();
      }}
    >
      <label htmlFor={inputId} className="visually-hidden">
        New name for {file.name}
      </label>
      <input
        id={inputId}
        value={name}
        maxLength={255}
        autoFocus
        onChange={(event) => setName(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') finish();
        }}
      />
      <button type="submit" className="button small">
        Save
      </button>
      <button type="button" className="button small" onClick={finish}>
        Cancel
      </button>
    </form>
  );
}
