import { licenceSides } from '../../shared/api/review';
import { labelOf } from '../../shared/assets/file-types';
import type { LicenceSide, StoredFile } from './platform/model';

/** Which side of a licence a file shows (`meta.side`), when it says. */
export const sideOf = (file: Pick<StoredFile, 'meta'>): LicenceSide | undefined =>
  licenceSides.find((side) => side === file.meta.side);

const sideWords: Record<LicenceSide, string> = { front: 'front', back: 'back', both: 'front and back' };

/** A file's kind for people: "Letter of accreditation", "Driver's licence — front". */
export function documentLabel(file: Pick<StoredFile, 'fileType' | 'meta'>): string {
  const side = sideOf(file);
  return side ? `${labelOf(file.fileType)} — ${sideWords[side]}` : labelOf(file.fileType);
}
