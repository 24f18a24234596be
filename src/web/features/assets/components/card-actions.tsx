import type { RefObject } from 'react';

/**
 * A card's buttons: Open for everyone; Rename (while no rename is open), Edit crop (an image whose
 * type is cropped) and Delete (a file not kept as evidence) for whoever may change the file. Each
 * names its file for screen readers.
 */
export function CardActions({
  fileName,
  canEdit,
  renaming,
  canCrop,
  canDelete,
  renameButton,
  onOpen,
  onPreload,
  onRename,
  onEditCrop,
  onDelete,
}: {
  fileName: string;
  canEdit: boolean;
  renaming: boolean;
  canCrop: boolean;
  canDelete: boolean;
  /** Where focus goes back to once a rename is done. */
  renameButton: RefObject<HTMLButtonElement | null>;
  onOpen: () => void;
  /** Pointing at or focusing Open starts loading the viewer already. */
  onPreload: () => void;
  onRename: () => void;
  onEditCrop: () => void;
  onDelete: () => void;
}) {
  return (
    <div className="asset-actions">
      <button
        type="button"
        className="button small"
        onClick={onOpen}
        onPointerEnter={onPreload}
        onFocus={onPreload}
      >
        Open<span className="visually-hidden"> {fileName}</span>
      </button>
      {canEdit && !renaming && (
        <button type="button" className="button small" ref={renameButton} onClick={onRename}>
          Rename<span className="visually-hidden"> {fileName}</span>
        </button>
      )}
      {canEdit && canCrop && (
        <button type="button" className="button small" onClick={onEditCrop}>
          Edit crop<span className="visually-hidden"> of {fileName}</span>
        </button>
      )}
      {canEdit && canDelete && (
        <button type="button" className="button small danger" onClick={onDelete}>
          Delete<span className="visually-hidden"> {fileName}</span>
        </button>
      )}
    </div>
  );
}
