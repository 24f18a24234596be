import type { FileList } from '../../../lib/file-lists';
import { lazy, Suspense } from 'react';
import { slotHint, type FileTypeInfo } from '../../../../shared/assets/file-types';
import type { EntityRef, StoredFile } from '../../../lib/platform/model';
import { deleteKey, waitingDeletes } from '../pending-deletes';
import { inUseAndEarlier } from '../single-file';
import { useSlotTarget } from '../slot-targets';
import { DeleteNotices } from './delete-notices';
import { DropAreaPlaceholder } from './drop-area-placeholder';
import { SideChoice, useNextSide } from './licence-side';
import { ChosenFilesLines } from './chosen-files-lines';
import { CropStep, PhotoWarningStep } from './pending-image-dialogs';
import { SlotFiles } from './slot-files';
import { UnfinishedUploads } from './unfinished-uploads';
import { UploadList } from './upload-list';
import { useChosenFiles } from './use-chosen-files';
import { useCropQueue } from './use-crop-queue';
import { useReplacingUploads } from './use-replacing-uploads';

const FileDrop = lazy(() => import('./file-drop'));

/** What an AssetSlot is given: one file type of one entity, and what the person may do there. */
export interface AssetSlotProps {
  entity: EntityRef;
  fileType: FileTypeInfo;
  files: StoredFile[];
  /** The query that lists these files. */
  list: FileList;
  canEdit: boolean;
  /** The platform refused a change here (403): the page becomes read-only. */
  onForbidden: () => void;
  /** Whether its entity needs it: "Required", "Optional", "One of these two". */
  need?: string;
  /** The decision a file is kept as evidence of ("rejection"), if any: it is not deleted or replaced. */
  keptAs?: (file: StoredFile) => string | undefined;
  /** Photos of a licence: each upload says which side it shows (`meta.side`). */
  sides?: boolean;
}

/**
 * One file type of one entity: what it takes, the files already there, and uploads. Images pass
 * through the crop dialog first, one at a time; everything is checked against the catalog before a
 * byte is sent, and refusals say why.
 */
export function AssetSlot(props: AssetSlotProps) {
  const { entity, fileType, files, list, canEdit, onForbidden, keptAs, sides = false } = props;
  waitingDeletes.useWaiting();
  const shown = files.filter((file) => !waitingDeletes.isWaiting(deleteKey(file.id)));
  const single = fileType.singleFile;
  const { inUse, earlier } = single ? inUseAndEarlier(shown) : { inUse: undefined, earlier: [] };
  // A file kept as evidence is never replaced: the new one goes beside it.
  const replaceable = inUse && !keptAs?.(inUse) ? inUse : undefined;
  const nextSide = useNextSide(shown);
  const uploads = useReplacingUploads({ entity, fileType: fileType.fileType, files, list, onForbidden });
  const headingId = `slot-${fileType.fileType}`;

  /** In a one-file slot, every upload replaces the file in use (when there is one). */
  const startUpload = (file: File, meta: Record<string, unknown>) => {
    uploads.start(file, {
      private: fileType.privateByDefault,
      meta: sides ? { ...meta, side: nextSide.side } : meta,
      replaces: replaceable ? [replaceable] : undefined,
    });
    if (sides) nextSide.reset();
  };
  const crops = useCropQueue(startUpload);

  const { accept, ...chosen } = useChosenFiles(fileType, startUpload, crops.add, canEdit);
  useSlotTarget({ fileType, accept: (files) => void accept(files) }, canEdit);

  /** "Retake / Choose another": this photo is dropped and the new ones take its place in the queue. */
  function retake(files: File[]) {
    crops.finish(undefined);
    void accept(files);
  }

  // An empty slot takes one line ("No pitch deck yet · Choose a file"), its rules folded away: the
  // page-wide drop target (page-drop.tsx) stands in for its drop area.
  // A one-file slot that has its file likewise offers Replace as a button beside its rules.
  const empty = shown.length === 0 && earlier.length === 0;
  const compact = canEdit && !sides && (empty || (single && inUse !== undefined));
  const chooseWords = single && replaceable ? 'Replace' : 'Choose a file';
  return (
    <section className={compact && empty ? 'slot card slot-empty' : 'slot card'} aria-labelledby={headingId}>
      <SlotHead fileType={fileType} headingId={headingId} need={props.need} showRules={canEdit && !compact} />
      <SlotFiles {...{ fileType, shown, inUse, earlier, list, canEdit, onForbidden, keptAs }} />
      {canEdit && (
        <>
          {sides && <SideChoice side={nextSide.side} onChoose={nextSide.choose} />}
          <DropArea
            fileType={fileType}
            choose={chooseWords}
            multiple={!single}
            compact={compact}
            onFiles={accept}
          />
          {/* After the upload control: the next stop from where focus goes once a file is deleted. */}
          <DeleteNotices entity={entity} fileType={fileType.fileType} list={list} />
          {compact && <FoldedRules fileType={fileType} />}
          <ChosenFilesLines {...chosen} />
          <PhotoWarningStep
            current={crops.current}
            fileType={fileType}
            onRetake={retake}
            onUseAnyway={crops.goOnAnyway}
          />
          <UnfinishedUploads uploads={uploads} headingId={headingId} />
          <UploadList uploads={uploads} />
        </>
      )}
      <CropStep
        current={crops.current}
        fileType={fileType}
        replacing={inUse !== undefined}
        batch={crops.position}
        onSkipRest={crops.length > 1 ? crops.skipRest : undefined}
        onFinish={crops.finish}
        headingId={headingId}
      />
    </section>
  );
}

/** The slot's drop area: a placeholder of its size and words until the live one (react-dropzone) loads. */
function DropArea({
  fileType,
  choose,
  multiple,
  compact,
  onFiles,
}: {
  fileType: FileTypeInfo;
  choose: string;
  multiple: boolean;
  compact: boolean;
  onFiles: (files: File[]) => Promise<void>;
}) {
  return (
    <Suspense fallback={<DropAreaPlaceholder fileType={fileType} choose={choose} compact={compact} />}>
      <FileDrop
        fileType={fileType}
        label={fileType.label}
        choose={choose}
        multiple={multiple}
        compact={compact}
        onFiles={(files) => void onFiles(files)}
      />
    </Suspense>
  );
}

function SlotHead({
  fileType,
  headingId,
  need,
  showRules,
}: {
  fileType: FileTypeInfo;
  headingId: string;
  need?: string;
  /** Its rules are for whoever may upload here, and said here unless folded away below. */
  showRules: boolean;
}) {
  return (
    <div className="slot-head">
      {/* Focusable from script only: where focus goes when nothing nearer is left (a last delete). */}
      <h2 id={headingId} tabIndex={-1}>
        {fileType.label}
      </h2>
      {need && <p className="slot-need">{need}</p>}
      {showRules && <p className="hint">{slotHint(fileType)}</p>}
    </div>
  );
}

/** A compact slot's rules, folded away under "What it takes". */
function FoldedRules({ fileType }: { fileType: FileTypeInfo }) {
  return (
    <details className="slot-rules">
      <summary>
        What it takes<span className="visually-hidden"> ({fileType.label})</span>
      </summary>
      <p className="hint">{slotHint(fileType)}</p>
    </details>
  );
}
