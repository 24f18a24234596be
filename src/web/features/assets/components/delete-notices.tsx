import type { FileList } from '../../../lib/file-lists';
import { useState } from 'react';
import type { EntityRef } from '../../../lib/platform/model';
import { useUndoReplace } from '../api/asset-queries';
import { goneElsewhere, useGoneElsewhere } from '../gone-elsewhere';
import { deleteKey, type FileToDelete, waitingDeletes } from '../pending-deletes';

/**
 * Notices of the slot's files that went: found deleted elsewhere (by a change or an open that met
 * a 404); "Deleted deck.pdf — Undo" and "Replaced deck.pdf with deck-2.pdf — Undo" while a delete
 * waits out its undo window; and the reason when the platform then refused one (its file is back in
 * the list). A polite live region, so the notice is heard where focus has moved on.
 */
export function DeleteNotices({
  entity,
  fileType,
  list,
}: {
  entity: EntityRef;
  fileType: string;
  list: FileList;
}) {
  const here = waitingDeletes
    .useWaiting()
    .filter(
      ({ item }) =>
        item.fileType === fileType && item.entity.type === entity.type && item.entity.id === entity.id,
    );
  const gone = useGoneElsewhere(entity, fileType);
  const undoReplace = useUndoReplace(list);
  const [undoProblem, setUndoProblem] = useState<string | null>(null);

  async function undo(file: FileToDelete) {
    setUndoProblem(await undoReplace(file));
    // The file's card is back after this render: focus goes to it, not to the page's top.
    requestAnimationFrame(() => document.getElementById(`file-${file.id}`)?.querySelector('button')?.focus());
  }

  return (
    <div className="delete-notices" role="status" aria-live="polite">
      {gone.map((file) => (
        <p key={`gone-${file.id}`} className="notice">
          {file.name} is no longer here: it was deleted elsewhere.{' '}
          <button type="button" className="button small" onClick={() => goneElsewhere.dismiss(file.id)}>
            Dismiss<span className="visually-hidden"> this message</span>
          </button>
        </p>
      ))}
      {undoProblem && <p className="field-error">{undoProblem}</p>}
      {here.map(({ item: file, failure }) =>
        failure ? (
          <p key={file.id} className="field-error">
            {failure}{' '}
            <button
              type="button"
              className="button small"
              onClick={() => waitingDeletes.undo(deleteKey(file.id))}
            >
              Dismiss<span className="visually-hidden"> this message</span>
            </button>
          </p>
        ) : (
          <p key={file.id} className="delete-notice" {...waitingDeletes.holdProps(deleteKey(file.id))}>
            {file.replacedBy
              ? `Replaced ${file.name} with ${file.replacedBy.name}.`
              : `Deleted ${file.name}.`}{' '}
            <button
              type="button"
              className="button small"
              id={`undo-file-${file.id}`}
              onClick={() => void undo(file)}
            >
              Undo
              <span className="visually-hidden">
                {file.replacedBy ? ` replacing ${file.name}` : ` deleting ${file.name}`}
              </span>
            </button>
          </p>
        ),
      )}
    </div>
  );
}
