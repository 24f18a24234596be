import { useContext, useEffect, useState } from 'react';
import type { FileTypeInfo } from '../../../../shared/assets/file-types';
import { isPhotoChecked } from '../../../../shared/assets/photo-quality';
import { PhotoCheckerContext } from '../photo-check/photo-checker';
import { sortDocuments, sortImages, type PendingImage } from './chosen-files';
import { cropDialog, photoWarning } from './dialogs-on-demand';
import { unansweredIssues } from './use-crop-queue';

/**
 * The way into a slot for files chosen or dropped: each is checked before a byte is sent; documents
 * go up at once, images queue for the photo warning and the crop dialog. `refusals` and `notes` are
 * about the last files chosen.
 */
export function useChosenFiles(
  fileType: FileTypeInfo,
  upload: (file: File, meta: Record<string, unknown>) => void,
  queueImages: (images: PendingImage[]) => void,
  canEdit: boolean,
) {
  const photoChecker = useContext(PhotoCheckerContext);
  const checksPhotos = fileType.documentType === 'image' && isPhotoChecked(fileType.fileType);
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
  const [refusals, setRefusals] = useState<string[]>([]);
  // Lines that are no refusal: a photo the browser could not check goes up all the same.
  const [notes, setNotes] = useState<string[]>([]);
  // A photo being checked: a 100 MP one takes most of a second on a phone, long enough to say so.
  const [checking, setChecking] = useState(false);

  async function accept(chosen: File[]) {
    if (fileType.documentType !== 'image') {
      const sorted = sortDocuments(chosen, fileType);
      for (const file of sorted.toUpload) upload(file, {});
      setRefusals(sorted.refusals);
      setNotes([]);
      return;
    }
    // The crop dialog comes next: its code loads while the images are read and checked, not after,
    // and the dialog opens once it is in. A failed load is left to the dialog's own (lazy) attempt.
    const cropCode = fileType.cropAspect ? cropDialog.preload().catch(() => undefined) : undefined;
    setChecking(checksPhotos);
    const sorted = await sortImages(chosen, fileType, photoChecker).finally(() => setChecking(false));
    // The photo warning comes first where the check found something; only then is its code fetched.
    const warns = sorted.images.some((image) => unansweredIssues(image).length > 0);
    await Promise.all([cropCode, warns ? photoWarning.preload().catch(() => undefined) : undefined]);
    setRefusals(sorted.refusals);
    setNotes(sorted.notes);
    queueImages(sorted.images);
  }

  return { refusals, notes, checking, accept };
}
