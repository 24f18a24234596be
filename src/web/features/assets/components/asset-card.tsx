import { useQueryClient } from '@tanstack/react-query';
import type { FileList } from '../../../lib/file-lists';
import { lazy, memo, Suspense, useRef, useState, type ReactNode } from 'react';
import { findFileType } from '../../../../shared/assets/file-types';
import { hasDraft } from '../../../lib/drafts';
import { formatSize, formatWhen } from '../../../lib/format';
import type { FileChanges, StoredFile } from '../../../lib/platform/model';
import { QualityFlags } from '../../../components/ui/quality-flags';
import { useServices } from '../../../lib/services';
import { useDeleteLater } from '../api/asset-queries';
import { viewableAs } from '../viewable';
import { CardActions } from './card-actions';
import { focusAfterRemoving } from './card-focus';
import { cropDialog } from './dialogs-on-demand';
import { ChangeNotSaved } from './change-not-saved';
import { FilePreview } from './file-preview';
import { FilePrivacy } from './file-privacy';
import { renameDraft, RenameForm } from './rename-form';
import { useCropEdit } from './use-crop-edit';
import { useFileChange } from './use-file-change';

export { focusCard } from './card-focus';

const loadFileViewer = () => import('./file-viewer');
const FileViewer = lazy(loadFileViewer);

/**
 * Starts loading the viewer before Open is pressed, and for a PDF what it shows first (page 1's
 * picture, then pdf.js: pdf-opening.ts).
 */
function usePreloadViewer(file: StoredFile): () => void {
  const { platform } = useServices();
  const queryClient = useQueryClient();
  // A failure is met again, and shown, when the viewer opens.
  if (viewableAs(file) !== 'pdf') return () => void loadFileViewer().catch(() => undefined);
  return () =>
    void loadFileViewer()
      .then(({ preloadPdfViewer }) => preloadPdfViewer(platform, queryClient, file))
      .catch(() => undefined);
}

/** What a card says about a file besides its name: size, upload date, an image's pixels. */
function factsOf(file: StoredFile): string[] {
  const facts: string[] = [];
  if (file.size !== undefined) facts.push(formatSize(file.size));
  if (file.width !== undefined && file.height !== undefined) facts.push(`${file.width} × ${file.height} px`);
  const when = file.uploadedAt ? formatWhen(file.uploadedAt) : undefined;
  if (when) facts.push(`uploaded ${when}`);
  return facts;
}

export interface AssetCardProps {
  file: StoredFile;
  list: FileList;
  canEdit: boolean;
  /** The platform refused a change (403): the page stops offering changes. */
  onForbidden: () => void;
  /** Shown beside the file in the viewer (the review queue's decision form). */
  viewerAside?: ReactNode;
  /** What kind of document it is, said on the card ("Driver's licence — front"). */
  kind?: string;
  /** Added since the last decision on its accreditation (the review queue marks it). */
  isNew?: boolean;
  /** Show the platform's photo-check flags ("Possibly blurry"): for reviewers (issue 31). */
  showQuality?: boolean;
  /**
   * A decision was made on it ("approval", "rejection"): kept as evidence, so it cannot be deleted
   * (the platform refuses with 409 `retained`); a new file goes beside it.
   */
  keptAs?: string;
}

/**
 * One file. Drawn again only when its own props change (memo): a change to one file (a rename shown at
 * once, before the platform answers) makes a new list, but the other files in it are the same objects,
 * so their cards are not drawn again. On a slow phone with a long list that is most of the time between
 * pressing Enter and seeing the new name (the interaction's INP, performance.md W4). Its callers keep
 * `list` and `onForbidden` the same from one drawing to the next for this.
 */
export const AssetCard = memo(function AssetCard(props: AssetCardProps) {
  const { file, list, canEdit, onForbidden, keptAs } = props;
  const [viewing, setViewing] = useState(false);
  const { update, change } = useFileChange(file, list, onForbidden);
  const crop = useCropEdit(file, list, change);
  const { cardRef, remove } = useRemoval(file, list, onForbidden);
  const rename = useRenaming(file);
  const cropAspect = findFileType(file.fileType)?.cropAspect;
  const preload = usePreloadViewer(file);

  return (
    <li className="asset-card" ref={cardRef} id={`file-${file.id}`}>
      <FilePreview file={file} />
      <div className="asset-body">
        {rename.open ? (
          <RenameForm file={file} onRename={(name) => change({ name })} onDone={rename.close} />
        ) : (
          <p className="asset-name">{file.name}</p>
        )}
        <CardFacts {...props} />
        <FilePrivacy file={file} canEdit={canEdit} busy={update.isPending} change={change} />
        <CardNotices
          keptAs={keptAs}
          notSaved={
            update.error && update.variables
              ? { error: update.error, changes: update.variables.changes }
              : null
          }
          onApplyAgain={change}
          cropError={crop.error}
        />
        <CardActions
          fileName={file.name}
          canEdit={canEdit}
          renaming={rename.open}
          canCrop={viewableAs(file) === 'image' && Boolean(cropAspect)}
          canDelete={!keptAs}
          renameButton={rename.button}
          // Every file opens in the viewer (an Office file shows what it is, with Download): none
          // downloads silently.
          onOpen={() => {
            crop.clearError();
            setViewing(true);
          }}
          onPreload={preload}
          onRename={rename.start}
          onEditCrop={() => void crop.start()}
          onDelete={remove}
        />
      </div>
      {viewing && (
        <Suspense fallback={null}>
          <FileViewer file={file} list={list} onClose={() => setViewing(false)} aside={props.viewerAside} />
        </Suspense>
      )}
      {crop.source && cropAspect && (
        <cropDialog.Component
          src={crop.source}
          fileName={file.name}
          aspect={cropAspect}
          initial={file.crop}
          saveLabel="Save crop"
          onCancel={crop.cancel}
          onSave={crop.save}
        />
      )}
    </li>
  );
});

/** Delete, with undo: the card leaves at once, and focus moves on to what comes next. */
function useRemoval(file: StoredFile, list: FileList, onForbidden: () => void) {
  const deleteFile = useDeleteLater(list, onForbidden);
  const cardRef = useRef<HTMLLIElement>(null);
  return {
    cardRef,
    remove() {
      const moveFocus = focusAfterRemoving(cardRef.current);
      deleteFile(file);
      // After this render the card is gone: focus moves on to what comes next, not to the page's top.
      requestAnimationFrame(moveFocus);
    },
  };
}

/** A rename of the card's file: open while its form shows, kept open through a reload by its draft. */
function useRenaming(file: StoredFile) {
  const [open, setOpen] = useState(() => hasDraft(renameDraft(file)));
  const button = useRef<HTMLButtonElement>(null);
  return {
    open,
    button,
    start: () => setOpen(true),
    close: () => {
      setOpen(false);
      // Back to the control that opened the form, once it is there again.
      requestAnimationFrame(() => button.current?.focus());
    },
  };
}

/** What the card says below its privacy: kept as evidence, a change not saved, a crop that could not start. */
function CardNotices({
  keptAs,
  notSaved,
  onApplyAgain,
  cropError,
}: {
  keptAs: string | undefined;
  notSaved: { error: Error; changes: FileChanges } | null;
  onApplyAgain: (changes: FileChanges) => void;
  cropError: string | null;
}) {
  return (
    <>
      {keptAs && <p className="hint kept">Kept as evidence of the {keptAs} — upload a new file beside it.</p>}
      {notSaved && (
        <ChangeNotSaved
          error={notSaved.error}
          changes={notSaved.changes}
          onApplyAgain={() => onApplyAgain(notSaved.changes)}
        />
      )}
      {cropError && (
        <p className="field-error" role="alert">
          {cropError}
        </p>
      )}
    </>
  );
}

/** The line under the name: what kind of document, "New", the photo check's flags; then size and date. */
function CardFacts({ file, kind, isNew = false, showQuality = false }: AssetCardProps) {
  return (
    <>
      {(kind || isNew || (showQuality && file.qualityIssues?.length)) && (
        <p className="asset-kind">
          {kind}
          {isNew && <span className="badge badge-new">New</span>}
          {showQuality && <QualityFlags issues={file.qualityIssues} />}
        </p>
      )}
      <p className="asset-facts">
        {file.private ? <span className="badge badge-private">Private</span> : null}{' '}
        {factsOf(file).join(' · ')}
      </p>
    </>
  );
}
