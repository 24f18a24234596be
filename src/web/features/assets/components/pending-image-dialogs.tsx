import type { Crop } from '../../../../shared/assets/crop';
import type { FileTypeInfo } from '../../../../shared/assets/file-types';
import type { PendingImage } from './chosen-files';
import { cropDialog, photoWarning } from './dialogs-on-demand';
import { unansweredIssues } from './use-crop-queue';

/** The photo check's warning about the image at the head of the queue, while it is unanswered. */
export function PhotoWarningStep({
  current,
  fileType,
  onRetake,
  onUseAnyway,
}: {
  current: PendingImage | undefined;
  fileType: FileTypeInfo;
  onRetake: (files: File[]) => void;
  onUseAnyway: () => void;
}) {
  if (!current || unansweredIssues(current).length === 0) return null;
  return (
    <photoWarning.Component
      key={current.url}
      src={current.url}
      fileName={current.file.name}
      issues={unansweredIssues(current)}
      document={fileType.fileType === 'utility_bill' ? 'bill' : 'licence'}
      onRetake={onRetake}
      onUseAnyway={onUseAnyway}
    />
  );
}

/** The crop dialog for the image at the head of the queue, once the photo check has nothing to say. */
export function CropStep({
  current,
  fileType,
  replacing,
  batch,
  onSkipRest,
  onFinish,
  headingId,
}: {
  current: PendingImage | undefined;
  fileType: FileTypeInfo;
  /** The slot has a file this upload replaces. */
  replacing: boolean;
  batch: { position: number; total: number } | undefined;
  onSkipRest: (() => void) | undefined;
  /** `undefined`: cancelled; `null`: the whole image. */
  onFinish: (crop: Crop | null | undefined) => void;
  /** Where focus goes back to when the dialog closes: the slot's heading. */
  headingId: string;
}) {
  if (!current || !fileType.cropAspect || unansweredIssues(current).length > 0) return null;
  return (
    <cropDialog.Component
      key={current.url}
      src={current.url}
      fileName={current.file.name}
      aspect={fileType.cropAspect}
      saveLabel={replacing ? 'Crop and replace' : 'Crop and upload'}
      batch={batch}
      onSkipRest={onSkipRest}
      onCancel={() => onFinish(undefined)}
      onSave={onFinish}
      returnFocus={() => document.getElementById(headingId)}
    />
  );
}
