import { findFileType } from '../../../shared/assets/file-types';
import type { StoredFile } from '../../lib/platform/model';

/** What the in-app viewer can show of a file: an image, a PDF, or nothing (it opens in a new tab). */
export function viewableAs(file: StoredFile): 'image' | 'pdf' | null {
  if (file.contentType?.startsWith('image/') ?? findFileType(file.fileType)?.documentType === 'image')
    return 'image';
  if (file.contentType === 'application/pdf' || (!file.contentType && /\.pdf$/i.test(file.name)))
    return 'pdf';
  return null;
}
