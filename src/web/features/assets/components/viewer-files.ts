import type { StoredFile } from '../../../lib/platform/model';

/** Where a file's card is on the page, for putting files in the order the person sees them. */
const cardOf = (file: StoredFile) => document.getElementById(`file-${file.id}`);

function pageOrder(a: StoredFile, b: StoredFile) {
  const [first, second] = [cardOf(a), cardOf(b)];
  if (!first || !second) return 0;
  return first.compareDocumentPosition(second) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
}

/**
 * The files the viewer steps through from `file`: those of the same entity in the cached list `listed`
 * that have a card on the page (a file waiting to be deleted has none), in the cards' order. Always
 * at least `file` itself.
 */
export function filesBeside(file: StoredFile, listed: StoredFile[]): StoredFile[] {
  const seen = new Set<number>();
  const same = listed.filter(
    (f) =>
      f.entity.type === file.entity.type &&
      f.entity.id === file.entity.id &&
      !seen.has(f.id) &&
      seen.add(f.id) &&
      (f.id === file.id || cardOf(f) !== null),
  );
  const files = same.some((f) => f.id === file.id) ? same : [file, ...same];
  return files.sort(pageOrder);
}
