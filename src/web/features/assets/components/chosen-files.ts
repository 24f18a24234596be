import { checkFileForSlot, checkImagePixels, type FileTypeInfo } from '../../../../shared/assets/file-types';
import { isPhotoChecked } from '../../../../shared/assets/photo-quality';
import type { PhotoChecker, PhotoVerdict } from '../photo-check/photo-checker';

/** An image waiting in a slot for its photo check's answer and the crop dialog, one at a time. */
export interface PendingImage {
  file: File;
  /** An object URL of the file, for the dialogs; released when the image leaves the queue. */
  url: string;
  /** The browser's photo check, for licence and bill photos (issue 31). */
  verdict?: PhotoVerdict;
  /** The person saw the check's warning and chose "Use anyway". */
  usedAnyway?: boolean;
}

/** Files that fit a slot of documents, and why the others do not. */
export interface SortedDocuments {
  /** Why a file is not used, one line each (shown as an alert). */
  refusals: string[];
  /** Files that go up as they are. */
  toUpload: File[];
}

/** Images that fit a slot of images, and what the browser found on the way. */
export interface SortedImages {
  refusals: string[];
  /** Lines that are no refusal: a photo the browser could not check goes up all the same. */
  notes: string[];
  /** On to the photo warning (when the check found something) and the crop dialog. */
  images: PendingImage[];
}

/** The upright size of an image, read by the browser without drawing it on a canvas. */
export function imageSize(url: string): Promise<{ width: number; height: number } | null> {
  return new Promise((resolve) => {
    const image = new Image();
    image.onload = () => resolve({ width: image.naturalWidth, height: image.naturalHeight });
    image.onerror = () => resolve(null);
    image.src = url;
  });
}

/** A slot that holds one file takes the first of several chosen at once, and says so. */
function oneWhereOneFits(chosen: File[], fileType: FileTypeInfo): { files: File[]; refusals: string[] } {
  if (!fileType.singleFile || chosen.length <= 1) return { files: chosen, refusals: [] };
  return {
    files: chosen.slice(0, 1),
    refusals: [`${fileType.label} holds one file, so only ${chosen[0]!.name} is used.`],
  };
}

/**
 * Chosen files checked against a slot that takes documents (not images), before a byte is sent:
 * synchronous, so their uploads start in the same turn as the drop.
 */
export function sortDocuments(chosen: File[], fileType: FileTypeInfo): SortedDocuments {
  const { files, refusals } = oneWhereOneFits(chosen, fileType);
  const toUpload: File[] = [];
  for (const file of files) {
    const reason = checkFileForSlot(file, fileType);
    if (reason) refusals.push(reason);
    else toUpload.push(file);
  }
  return { refusals, toUpload };
}

/**
 * Chosen files checked against a slot that takes images: the catalog's rules, then the image's
 * pixels as the browser reads them, then (licence and bill photos) the browser's photo check.
 * Refusals come in the order of the files.
 */
export async function sortImages(
  chosen: File[],
  fileType: FileTypeInfo,
  photoChecker: PhotoChecker,
): Promise<SortedImages> {
  const { files, refusals } = oneWhereOneFits(chosen, fileType);
  const sorted: SortedImages = { refusals, notes: [], images: [] };
  for (const file of files) {
    const reason = checkFileForSlot(file, fileType);
    if (reason) sorted.refusals.push(reason);
    else await sortImage(file, fileType, photoChecker, sorted);
  }
  return sorted;
}

/** An image that fits the slot's rules: refused when too big or unreadable, else checked and queued. */
async function sortImage(
  file: File,
  fileType: FileTypeInfo,
  photoChecker: PhotoChecker,
  sorted: SortedImages,
) {
  const url = URL.createObjectURL(file);
  const size = await imageSize(url);
  const tooBig = size
    ? checkImagePixels(file.name, size)
    : `${file.name} is not an image the browser can read.`;
  if (tooBig) {
    URL.revokeObjectURL(url);
    sorted.refusals.push(tooBig);
  } else if (size && isPhotoChecked(fileType.fileType)) {
    const verdict = await photoChecker.check(file, size);
    if (verdict.kind === 'skipped')
      sorted.notes.push(`${file.name} could not be checked here; the platform checks it when it arrives.`);
    sorted.images.push({ file, url, verdict });
  } else sorted.images.push({ file, url });
}
