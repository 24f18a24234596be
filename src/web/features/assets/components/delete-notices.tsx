import type { EntityRef } from '../../../lib/platform/model';
import { goneElsewhere, useGoneElsewhere } from '../gone-elsewhere';
import { deleteKey, waitingDeletes } from '../pending-deletes';

/**
 * Notices of the slot's files that went: "deck.pdf … deleted elsewhere" (found gone by a change or an
 * open), and "Deleted deck.pdf — Undo" for each of the slot's deletes still in their undo window, and the reason
 * when the platform then refused one (its file is back in the list). A polite live region, so the
 * notice is heard where focus has moved on.
 */
export function DeleteNotices({ entity, fileType }: { entity: EntityRef; fileType: string }) {
  const here = waitingDeletes
    .useWaiting()
    .filter(
      ({ item }) =>
        item.fileType === fileType && item.entity.type === entity.type && item.entity.id === entity.id,
    );
  function undo(fileId: number) {
    waitingDeletes.undo(deleteKey(fileId));
    // The file's card is back after this render: focus goes to it, not to the page's top.
    requestAnimationFrame(() => document.getElementById(`file-${fileId}`)?.querySelector('button')?.focus());
  }
  const gone = useGoneElsewhere(entity, fileType);
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
            Deleted {file.name}.{' '}
            <button
              type="button"
              className="button small"
              id={`undo-file-${file.id}`}
              onClick={() => undo(file.id)}
            >
              Undo<span className="visually-hidden"> deleting {file.name}</span>
            </button>
          </p>
        ),
      )}
    </div>
  );
}
