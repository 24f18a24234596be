import { useQueryClient, type QueryKey } from '@tanstack/react-query';
import { lazy, Suspense, useContext, useEffect, useId, useRef, useState } from 'react';
import type { Crop } from '../../../../shared/assets/crop';
import {
  checkFileForSlot,
  checkImagePixels,
  slotHint,
  type FileTypeInfo,
} from '../../../../shared/assets/file-types';
import { isPhotoChecked } from '../../../../shared/assets/photo-quality';
import { rememberUpload } from '../../../lib/browser-memory';
import { documentLabel, sideOf } from '../../../lib/document-label';
import type { EntityRef, LicenceSide, StoredFile } from '../../../lib/platform/model';
import { useDeleteLater } from '../api/asset-queries';
import { deleteKey, waitingDeletes } from '../pending-deletes';
import { privacyWarnings } from '../privacy-warnings';
import { inUseAndEarlier } from '../single-file';
import { useSlotTarget } from '../slot-targets';
import { useUploads, type UploadItem } from '../upload/use-uploads';
import { AssetCard } from './asset-card';
import { DeleteNotices } from './delete-notices';
import { UnfinishedUploads } from './unfinished-uploads';
import { UploadList } from './upload-list';
import { DropAreaPlaceholder } from './drop-area-placeholder';
import { PhotoCheckerContext, type PhotoVerdict } from '../photo-check/photo-checker';

const FileDrop = lazy(() => import('./file-drop'));
const CropDialog = lazy(() => import('./crop-dialog'));
// Only when a photo has a problem: most uploads never load it.
const PhotoWarning = lazy(() => import('../photo-check/photo-warning'));

/** The upright size of an image, read by the browser without drawing it on a canvas. */
function imageSize(url: string): Promise<{ width: number; height: number } | null> {
  return new Promise((resolve) => {
    const image = new Image();
    image.onload = () => resolve({ width: image.naturalWidth, height: image.naturalHeight });
    image.onerror = () => resolve(null);
    image.src = url;
  });
}

const sideChoices: { side: LicenceSide; label: string }[] = [
  { side: 'front', label: 'Front' },
  { side: 'back', label: 'Back' },
  { side: 'both', label: 'One photo shows both sides' },
];

/** The side a next licence photo most likely shows: the first one not there yet. */
function missingSide(files: StoredFile[]): LicenceSide {
  const sides = new Set(files.map(sideOf));
  return sides.has('front') && !sides.has('back') ? 'back' : 'front';
}

interface Pending {
  file: File;
  url: string;
  /** The browser's photo check, for licence and bill photos (issue 31). */
  verdict?: PhotoVerdict;
  /** The person saw the check's warning and chose "Use anyway". */
  usedAnyway?: boolean;
}

/** Problems the check found that the person has not yet answered; empty when there is nothing to say. */
const unansweredIssues = (pending: Pending) =>
  pending.verdict?.kind === 'checked' && !pending.usedAnyway ? pending.verdict.quality.issues : [];

/**
 * One file type of one entity: what it takes, the files already there, and uploads. Images pass
 * through the crop dialog first, one at a time; everything is checked against the catalog before a
 * byte is sent, and refusals say why.
 */
export function AssetSlot({
  entity,
  fileType,
  files,
  listKey,
  canEdit,
  onForbidden,
  need,
  keptAs,
  sides = false,
}: {
  entity: EntityRef;
  fileType: FileTypeInfo;
  files: StoredFile[];
  /** The query that lists these files. */
  listKey: QueryKey;
  canEdit: boolean;
  /** The platform refused a change here (403): the page becomes read-only. */
  onForbidden: () => void;
  /** Whether its entity needs it: "Required", "Optional", "One of these two". */
  need?: string;
  /** The decision a file is kept as evidence of ("rejection"), if any: it is not deleted or replaced. */
  keptAs?: (file: StoredFile) => string | undefined;
  /** Photos of a licence: each upload says which side it shows (`meta.side`). */
  sides?: boolean;
}) {
  const queryClient = useQueryClient();
  const [refusals, setRefusals] = useState<string[]>([]);
  // Lines that are no refusal: a photo the browser could not check goes up all the same.
  const [notes, setNotes] = useState<string[]>([]);
  const photoChecker = useContext(PhotoCheckerContext);
  const [toCrop, setToCrop] = useState<Pending[]>([]);
  // How far through a batch of images the crop dialog is ("Image 2 of 3").
  const [batch, setBatch] = useState({ done: 0, total: 0 });
  waitingDeletes.useWaiting();
  const shown = files.filter((file) => !waitingDeletes.isWaiting(deleteKey(file.id)));
  const single = fileType.singleFile;
  const { inUse, earlier } = single ? inUseAndEarlier(shown) : { inUse: undefined, earlier: [] };
  // A file kept as evidence is never replaced: the new one goes beside it.
  const replaceable = inUse && !keptAs?.(inUse) ? inUse : undefined;
  const [chosenSide, setChosenSide] = useState<LicenceSide | null>(null);
  const side = chosenSide ?? missingSide(shown);
  const sideName = useId();
  // The latest list, for the ETag of a file being replaced when its replacement is stored.
  const latest = useRef(files);
  useEffect(() => {
    latest.current = files;
  }, [files]);
  const deleteLater = useDeleteLater(listKey, onForbidden);
  const uploads = useUploads({
    entity,
    fileType: fileType.fileType,
    onUploaded: ({ file, privacyNotApplied }, { replaces }) => {
      // Remembered, so a platform that does not list an entity's files still shows it here.
      rememberUpload(entity, file.id);
      if (privacyNotApplied) privacyWarnings.add(file.id);
      void queryClient.invalidateQueries({ queryKey: listKey });
      if (replaces?.length) replace(replaces, file);
    },
    onForbidden,
  });
  const image = fileType.documentType === 'image';
  const checksPhotos = image && isPhotoChecked(fileType.fileType);
  const chooseWords = single && replaceable ? 'Replace' : 'Choose a file';
  const headingId = `slot-${fileType.fileType}`;
  const current = toCrop[0];

  // The photo check's worker starts, and readies its measures, while the person chooses a photo.
  useEffect(() => {
    if (!checksPhotos || !canEdit) return;
    const idle = typeof requestIdleCallback === 'function';
    const handle = idle ? requestIdleCallback(() => photoChecker.prepare?.()) : undefined;
    if (!idle) photoChecker.prepare?.();
    return () => {
      if (handle !== undefined) cancelIdleCallback(handle);
    };
  }, [checksPhotos, canEdit, photoChecker]);

  // Every object URL made for the crop dialog is released: when its file leaves the queue, or when
  // the page goes away with files still waiting.
  const waiting = useRef<Pending[]>([]);
  useEffect(() => {
    waiting.current = toCrop;
  }, [toCrop]);
  useEffect(() => () => waiting.current.forEach((p) => URL.revokeObjectURL(p.url)), []);

  /**
   * The new file is stored: now, and only now, the one it replaces goes — after the same undo window
   * as a delete, so "Undo" can still put the old one back.
   */
  function replace(replaced: NonNullable<UploadItem['replaces']>, by: StoredFile) {
    for (const old of replaced) {
      const current = latest.current.find((f) => f.id === old.id) ?? old;
      deleteLater({ ...current, replacedBy: by });
    }
  }

  /** In a one-file slot, every upload replaces the file in use (when there is one). */
  const startUpload = (file: File, meta: Record<string, unknown>) => {
    uploads.start(file, {
      private: fileType.privateByDefault,
      meta: sides ? { ...meta, side } : meta,
      replaces: replaceable ? [replaceable] : undefined,
    });
    // The next photo is most likely the other side.
    if (sides) setChosenSide(null);
  };

  async function accept(chosen: File[]) {
    const reasons: string[] = [];
    let files = chosen;
    if (single && chosen.length > 1) {
      reasons.push(`${fileType.label} holds one file, so only ${chosen[0]!.name} is used.`);
      files = chosen.slice(0, 1);
    }
    const images: Pending[] = [];
    const skipped: string[] = [];
    for (const file of files) {
      const reason = checkFileForSlot(file, fileType);
      if (reason) {
        reasons.push(reason);
      } else if (image) {
        const url = URL.createObjectURL(file);
        const size = await imageSize(url);
        const tooBig = size
          ? checkImagePixels(file.name, size)
          : `${file.name} is not an image the browser can read.`;
        if (tooBig) {
          URL.revokeObjectURL(url);
          reasons.push(tooBig);
        } else if (checksPhotos && size) {
          const verdict = await photoChecker.check(file, size);
          if (verdict.kind === 'skipped')
            skipped.push(`${file.name} could not be checked here; the platform checks it when it arrives.`);
          images.push({ file, url, verdict });
        } else images.push({ file, url });
      } else {
        startUpload(file, {});
      }
    }
    setRefusals(reasons);
    setNotes(skipped);
    if (images.length > 0) {
      setBatch((b) =>
        toCrop.length === 0 ? { done: 0, total: images.length } : { ...b, total: b.total + images.length },
      );
      setToCrop((queue) => [...queue, ...images]);
    }
  }

  useSlotTarget({ fileType, accept: (files) => void accept(files) }, canEdit);

  /** `undefined`: not uploaded (cancelled); `null`: the whole image. */
  function finishCrop(crop: Crop | null | undefined) {
    if (!current) return;
    URL.revokeObjectURL(current.url);
    if (crop !== undefined) {
      startUpload(current.file, crop ? { crop } : {});
    }
    setBatch((b) => ({ ...b, done: b.done + 1 }));
    setToCrop((queue) => queue.slice(1));
  }

  /** "Retake / Choose another": this photo is dropped and the new ones take its place in the queue. */
  function retake(files: File[]) {
    finishCrop(undefined);
    void accept(files);
  }

  /** "Use anyway": on to the crop dialog, as for a photo with nothing to say. */
  function useAnyway() {
    setToCrop((queue) => (queue[0] ? [{ ...queue[0], usedAnyway: true }, ...queue.slice(1)] : queue));
  }

  /** "Skip crop for the rest": this image and every one still waiting go up whole. */
  function skipCropForTheRest() {
    for (const pending of toCrop) {
      URL.revokeObjectURL(pending.url);
      startUpload(pending.file, {});
    }
    setBatch({ done: 0, total: 0 });
    setToCrop([]);
  }

  // An empty slot takes one line ("No pitch deck yet · Choose a file"), its rules folded away: the
  // page-wide drop target (page-drop.tsx) stands in for its drop area.
  // A one-file slot that has its file likewise offers Replace as a button beside its rules.
  const empty = shown.length === 0 && earlier.length === 0;
  const compact = canEdit && !sides && (empty || (single && inUse !== undefined));
  return (
    <section
      className={canEdit && empty && !sides ? 'slot card slot-empty' : 'slot card'}
      aria-labelledby={headingId}
    >
      <div className="slot-head">
        {/* Focusable from script only: where focus goes when nothing nearer is left (a last delete). */}
        <h2 id={headingId} tabIndex={-1}>
          {fileType.label}
        </h2>
        {need && <p className="slot-need">{need}</p>}
        {/* Its rules are for whoever may upload here. */}
        {canEdit && !compact && <p className="hint">{slotHint(fileType)}</p>}
      </div>

      {shown.length > 0 ? (
        <ul className="asset-list" aria-label="Files">
          {(inUse ? [inUse] : shown).map((file) => (
            <AssetCard
              key={file.id}
              file={file}
              listKey={listKey}
              canEdit={canEdit}
              onForbidden={onForbidden}
              kind={sideOf(file) ? documentLabel(file) : undefined}
              keptAs={keptAs?.(file)}
            />
          ))}
        </ul>
      ) : (
        <p className="empty-slot">No {fileType.label.toLowerCase()} yet</p>
      )}
      {earlier.length > 0 && (
        <div className="earlier-files">
          <h3>
            {earlier.length === 1 ? 'An earlier file, not used' : `${earlier.length} earlier files, not used`}
          </h3>
          <p className="hint">
            Only the newest {fileType.label.toLowerCase()} is used.{' '}
            {earlier.every((file) => keptAs?.(file))
              ? 'These stay: a decision was made on them.'
              : 'Delete these when you no longer need them.'}
          </p>
          <ul className="asset-list" aria-label="Earlier files, not used">
            {earlier.map((file) => (
              <AssetCard
                key={file.id}
                file={file}
                listKey={listKey}
                canEdit={canEdit}
                onForbidden={onForbidden}
                keptAs={keptAs?.(file)}
              />
            ))}
          </ul>
        </div>
      )}
      {canEdit && (
        <>
          {sides && (
            <fieldset className="sides">
              <legend>Which side does the next photo show?</legend>
              {sideChoices.map((choice) => (
                <label key={choice.side}>
                  <input
                    type="radio"
                    name={sideName}
                    value={choice.side}
                    checked={side === choice.side}
                    onChange={() => setChosenSide(choice.side)}
                  />{' '}
                  {choice.label}
                </label>
              ))}
            </fieldset>
          )}
          <Suspense
            fallback={<DropAreaPlaceholder fileType={fileType} choose={chooseWords} compact={compact} />}
          >
            <FileDrop
              fileType={fileType}
              label={fileType.label}
              choose={chooseWords}
              multiple={!single}
              compact={compact}
              onFiles={(files) => void accept(files)}
            />
          </Suspense>
          {/* After the upload control: the next stop from where focus goes once a file is deleted. */}
          <DeleteNotices entity={entity} fileType={fileType.fileType} listKey={listKey} />
          {compact && (
            <details className="slot-rules">
              <summary>
                What it takes<span className="visually-hidden"> ({fileType.label})</span>
              </summary>
              <p className="hint">{slotHint(fileType)}</p>
            </details>
          )}
          {notes.length > 0 && (
            <ul className="notes" role="status">
              {notes.map((note) => (
                <li key={note}>{note}</li>
              ))}
            </ul>
          )}
          {current && unansweredIssues(current).length > 0 && (
            <Suspense fallback={null}>
              <PhotoWarning
                key={current.url}
                src={current.url}
                fileName={current.file.name}
                issues={unansweredIssues(current)}
                document={fileType.fileType === 'utility_bill' ? 'bill' : 'licence'}
                onRetake={retake}
                onUseAnyway={useAnyway}
              />
            </Suspense>
          )}
          {refusals.length > 0 && (
            <ul className="refusals" role="alert">
              {refusals.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
          )}
          <UnfinishedUploads uploads={uploads} headingId={headingId} />
          <UploadList uploads={uploads} />
        </>
      )}

      {current && fileType.cropAspect && unansweredIssues(current).length === 0 && (
        <Suspense fallback={null}>
          <CropDialog
            key={current.url}
            src={current.url}
            fileName={current.file.name}
            aspect={fileType.cropAspect}
            saveLabel={inUse ? 'Crop and replace' : 'Crop and upload'}
            batch={batch.total > 1 ? { position: batch.done + 1, total: batch.total } : undefined}
            onSkipRest={toCrop.length > 1 ? skipCropForTheRest : undefined}
            onCancel={() => finishCrop(undefined)}
            onSave={finishCrop}
            returnFocus={() => document.getElementById(headingId)}
          />
        </Suspense>
      )}
    </section>
  );
}
