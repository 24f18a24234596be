import { useQuery, type QueryKey } from '@tanstack/react-query';
import { lazy, memo, Suspense, useId, useRef, useState, type ReactNode } from 'react';
import type { Crop } from '../../../../shared/assets/crop';
import { findFileType } from '../../../../shared/assets/file-types';
import { hasDraft, useDraft } from '../../../lib/drafts';
import { ApiError, messageOf } from '../../../lib/platform/errors';
import type { FileChanges, StoredFile, Variant } from '../../../lib/platform/model';
import { useServices } from '../../../lib/services';
import { formatSize, formatWhen } from '../../../lib/format';
import { previewAddressQuery, useDeleteLater, useLeaveList, useUpdateFile } from '../api/asset-queries';
import { audienceOf, privacyMatters } from '../audience';
import { usePrivacyWarning, privacyWarnings } from '../privacy-warnings';
import { kindOf } from '../file-kind';
import { QualityFlags } from '../../../components/ui/quality-flags';
import { viewableAs } from '../viewable';
import { CroppedImage } from './cropped-image';
import { previewWidth } from './preview-width';

const CropDialog = lazy(() => import('./crop-dialog'));
const loadFileViewer = () => import('./file-viewer');
const FileViewer = lazy(loadFileViewer);

const isImage = (file: StoredFile) => viewableAs(file) === 'image';

/** What the file is, as the platform sniffed it where it says (a text file named fake.pdf: Text). */
const typeBadge = (file: StoredFile) => kindOf(file).badge;

/** What a card shows: the image (cropped or whole), a PDF's thumbnail, or nothing. */
function previewSource(file: StoredFile): { id: number; variant: Variant; crop?: Crop } | null {
  if (isImage(file)) return { id: file.id, variant: file.crop ? 'cropped' : 'preview', crop: file.crop };
  if (file.thumbnailId !== undefined) return { id: file.thumbnailId, variant: 'preview' };
  return null;
}

function TypeIcon({ file }: { file: StoredFile }) {
  return (
    <div className="preview preview-icon" aria-hidden="true">
      {typeBadge(file)}
    </div>
  );
}

function Preview({ file }: { file: StoredFile }) {
  const { platform } = useServices();
  const source = previewSource(file);
  const address = useQuery({
    ...previewAddressQuery(
      platform,
      { id: source?.id ?? file.id, version: file.version },
      source?.variant ?? 'preview',
      previewWidth,
    ),
    enabled: source !== null,
  });
  // A signed address ends when the file changes (H2): one that fails is asked for afresh, once per
  // look of the file; a second failure leaves the type badge.
  const retried = useRef(new Set<string>());
  const [brokenUrl, setBrokenUrl] = useState<string>();
  // A PDF's thumbnail still being made has no address yet: the type shows until it is ready (the
  // query asks again, as the platform says).
  const shown = address.data && 'url' in address.data ? address.data : undefined;
  const failed = () => {
    if (!retried.current.has(file.version)) {
      retried.current.add(file.version);
      void address.refetch();
    } else setBrokenUrl(shown?.url);
  };
  if (!source || !shown || shown.url === brokenUrl) return <TypeIcon file={file} />;
  const alt = `Preview of ${file.name}`;
  // A platform without renditions sends the original: the browser shows the crop itself (lazily).
  if (!shown.rendered && source.crop) {
    return <CroppedImage className="preview" src={shown.url} crop={source.crop} alt={alt} onError={failed} />;
  }
  return <img className="preview" src={shown.url} alt={alt} loading="lazy" onError={failed} />;
}

const renameDraft = (file: StoredFile) => `rename:${file.id}`;

function RenameForm({
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

/** What a card says about a file besides its name: size, upload date, an image's pixels. */
function factsOf(file: StoredFile): string[] {
  const facts: string[] = [];
  if (file.size !== undefined) facts.push(formatSize(file.size));
  if (file.width !== undefined && file.height !== undefined) facts.push(`${file.width} × ${file.height} px`);
  const when = file.uploadedAt ? formatWhen(file.uploadedAt) : undefined;
  if (when) facts.push(`uploaded ${when}`);
  return facts;
}

/**
 * Moves focus to a file's card, to its first action (as after a delete, below); false when the file
 * has no card on the page.
 */
export function focusCard(fileId: number): boolean {
  const action = document.getElementById(`file-${fileId}`)?.querySelector<HTMLElement>('button');
  action?.focus();
  return action !== undefined && action !== null;
}

/**
 * Where focus goes once a card has left the list: the next card's first action, else the one before,
 * else the slot's upload control, else its heading. Never the top of the page, and never into the
 * "Undo" notice (it would hold the undo window open: the notice is the next stop after the upload
 * control, and a live region announces it). Found before the card goes (its neighbours), and
 * looked up once it has (the upload control).
 */
function focusAfterRemoving(card: HTMLElement | null): () => void {
  const neighbour = (card?.nextElementSibling ?? card?.previousElementSibling) as HTMLElement | null;
  const next = neighbour?.querySelector<HTMLElement>('button');
  const slot = card?.closest('section');
  return () =>
    (next?.isConnected
      ? next
      : (slot?.querySelector<HTMLElement>('.drop-area button') ?? slot?.querySelector('h2'))
    )?.focus();
}

function preloadViewer() {
  loadFileViewer().catch(() => undefined); // met again, and shown, when the viewer opens
}

function preloadPdf() {
  loadFileViewer()
    .then(({ preloadPdfViewer }) => preloadPdfViewer())
    .catch(() => undefined); // met again, and shown, when the viewer opens
}

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
function ChangeNotSaved({
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

/**
 * One file. Drawn again only when its own props change (memo): a change to one file (a rename shown at
 * once, before the platform answers) makes a new list, but the other files in it are the same objects,
 * so their cards are not drawn again. On a slow phone with a long list that is most of the time between
 * pressing Enter and seeing the new name (the interaction's INP, performance.md W4). Its callers keep
 * `listKey` and `onForbidden` the same from one drawing to the next for this.
 */
export const AssetCard = memo(function AssetCard({
  file,
  listKey,
  canEdit,
  onForbidden,
  viewerAside,
  kind,
  isNew = false,
  showQuality = false,
  keptAs,
}: {
  file: StoredFile;
  listKey: QueryKey;
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
}) {
  const { platform } = useServices();
  const [viewing, setViewing] = useState(false);
  const update = useUpdateFile(listKey);
  const deleteFile = useDeleteLater(listKey, onForbidden);
  const leaveList = useLeaveList(listKey);
  const [renaming, setRenaming] = useState(() => hasDraft(renameDraft(file)));
  const [cropSource, setCropSource] = useState<string | null>(null);
  const [openError, setOpenError] = useState<string | null>(null);
  // The switch follows the click at once, before the cache's optimistic update lands a tick later.
  const [pendingPrivate, setPendingPrivate] = useState<boolean | null>(null);
  const isPrivate = pendingPrivate ?? file.private;
  const exposed = usePrivacyWarning(file.id) && !file.private;
  const fileType = findFileType(file.fileType);
  const image = isImage(file);
  const privateId = useId();
  const audienceId = useId();
  const cardRef = useRef<HTMLLIElement>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const facts = factsOf(file);

  const change = (changes: Parameters<typeof update.mutate>[0]['changes'], onSettled?: () => void) =>
    update.mutate(
      { file, changes },
      {
        onSuccess: (_stored, { changes: made }) => {
          if (made.private === true) privacyWarnings.remove(file.id);
        },
        onError: (error) => {
          if (error instanceof ApiError && error.status === 403) onForbidden();
        },
        onSettled,
      },
    );

  // Every file opens in the viewer (an Office file shows what it is, with Download): none downloads
  // silently.
  function open() {
    setOpenError(null);
    setViewing(true);
  }

  async function editCrop() {
    setOpenError(null);
    try {
      setCropSource((await platform.address(file.id)).url);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) leaveList(file);
      else setOpenError(messageOf(error));
    }
  }

  function saveCrop(crop: Crop | null) {
    setCropSource(null);
    const meta = { ...file.meta };
    if (crop) meta.crop = crop;
    else delete meta.crop;
    change({ meta });
  }

  function remove() {
    const moveFocus = focusAfterRemoving(cardRef.current);
    deleteFile(file);
    // After this render the card is gone: focus moves on to what comes next, not to the page's top.
    requestAnimationFrame(moveFocus);
  }

  return (
    <li className="asset-card" ref={cardRef} id={`file-${file.id}`}>
      <Preview file={file} />
      <div className="asset-body">
        {renaming ? (
          <RenameForm
            file={file}
            onRename={(name) => change({ name })}
            onDone={() => {
              setRenaming(false);
              // Back to the control that opened the form, once it is there again.
              requestAnimationFrame(() => renameButton.current?.focus());
            }}
          />
        ) : (
          <p className="asset-name">{file.name}</p>
        )}
        {(kind || isNew || (showQuality && file.qualityIssues?.length)) && (
          <p className="asset-kind">
            {kind}
            {isNew && <span className="badge badge-new">New</span>}
            {showQuality && <QualityFlags issues={file.qualityIssues} />}
          </p>
        )}
        <p className="asset-facts">
          {file.private ? <span className="badge badge-private">Private</span> : null} {facts.join(' · ')}
        </p>
        {exposed && (
          <div className="notice notice-warning" role="alert">
            <p>Visible to others: this file should be private, but the platform did not make it private.</p>
            <button
              type="button"
              className="button small"
              disabled={update.isPending}
              onClick={() => change({ private: true })}
            >
              Make it private<span className="visually-hidden"> ({file.name})</span>
            </button>
          </div>
        )}
        {canEdit && privacyMatters(file.entity.type) ? (
          <div className="private-toggle">
            <input
              type="checkbox"
              role="switch"
              id={privateId}
              checked={isPrivate}
              aria-describedby={audienceId}
              onChange={(event) => {
                const wanted = event.target.checked;
                setPendingPrivate(wanted);
                change({ private: wanted }, () => setPendingPrivate(null));
              }}
            />
            <label htmlFor={privateId}>Private</label>
            <p id={audienceId} className="hint">
              {audienceOf(file.entity.type, isPrivate)}
            </p>
          </div>
        ) : (
          <p className="hint">{audienceOf(file.entity.type, file.private, canEdit)}</p>
        )}
        {keptAs && (
          <p className="hint kept">Kept as evidence of the {keptAs} — upload a new file beside it.</p>
        )}
        {update.error && update.variables && (
          <ChangeNotSaved
            error={update.error}
            changes={update.variables.changes}
            onApplyAgain={() => change(update.variables!.changes)}
          />
        )}
        {openError && (
          <p className="field-error" role="alert">
            {openError}
          </p>
        )}
        <div className="asset-actions">
          <button
            type="button"
            className="button small"
            onClick={open}
            // Pointing at or focusing Open starts loading the viewer (and for a PDF pdf.js) already.
            onPointerEnter={viewableAs(file) === 'pdf' ? preloadPdf : preloadViewer}
            onFocus={viewableAs(file) === 'pdf' ? preloadPdf : preloadViewer}
          >
            Open<span className="visually-hidden"> {file.name}</span>
          </button>
          {canEdit && !renaming && (
            <button
              type="button"
              className="button small"
              ref={renameButton}
              onClick={() => setRenaming(true)}
            >
              Rename<span className="visually-hidden"> {file.name}</span>
            </button>
          )}
          {canEdit && image && fileType?.cropAspect && (
            <button type="button" className="button small" onClick={() => void editCrop()}>
              Edit crop<span className="visually-hidden"> of {file.name}</span>
            </button>
          )}
          {canEdit && !keptAs && (
            <button type="button" className="button small danger" onClick={remove}>
              Delete<span className="visually-hidden"> {file.name}</span>
            </button>
          )}
        </div>
      </div>
      {viewing && (
        <Suspense fallback={null}>
          <FileViewer file={file} listKey={listKey} onClose={() => setViewing(false)} aside={viewerAside} />
        </Suspense>
      )}
      {cropSource && fileType?.cropAspect && (
        <Suspense fallback={null}>
          <CropDialog
            src={cropSource}
            fileName={file.name}
            aspect={fileType.cropAspect}
            initial={file.crop}
            saveLabel="Save crop"
            onCancel={() => setCropSource(null)}
            onSave={saveCrop}
          />
        </Suspense>
      )}
    </li>
  );
});
