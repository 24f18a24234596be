import type { StoredFile } from '../../lib/platform/model';
import { kindOf, type Presentation } from './file-kind';

/**
 * How the in-app viewer shows a file: an image, a PDF, text, a table, or (null) what it is with a
 * Download. Every file opens in the viewer; none is downloaded silently.
 */
export function viewableAs(file: StoredFile): Presentation {
  return kindOf(file).shownAs;
}
