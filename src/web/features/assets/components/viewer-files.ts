import type { StoredFile } from '../../../lib/platform/model';

const isFile = (value: unknown): value is StoredFile =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as StoredFile).id === 'number' &&
  typeof (value as StoredFile).entity === 'object';

/** Every file in a cached list, whatever its shape: an entity's pages, the review queue's pages. */
function filesIn(data: unknown, found: StoredFile[] = []): StoredFile[] {
  if (Array.isArray(data)) for (const item of data) filesIn(item, found);
  else if (typeof data === 'object' && data !== null) {
    const { files, pages, items } = data as { files?: unknown; pages?: unknown; items?: unknown };
    if (Array.isArray(files)) found.push(...files.filter(isFile));
    filesIn(pages, found);
    filesIn(items, found);
  }
  return found;
}

/** Where a file's card is on the page, for putting files in the order the person sees them. */
const cardOf = (file: StoredFile) => document.getElementById(`file-${file.id}`);

function pageOrder(a: StoredFile, b: StoredFile) {
  const [first, second] = [cardOf(a), cardOf(b)];
  if (!first || !second) return 0;
  return first.compareDocumentPosition(second) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1;
}

/**
 * The files the viewer steps through from `file`: those of the same entity in the cached list `data`
 * that have a card on the page (a file waiting to be deleted has none), in the cards' order. Always
 * at least `file` itself.
 */
export function filesBeside(file: StoredFile, data: unknown): StoredFile[] {
  const seen = new Set<number>();
  const same = filesIn(data).filter(
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
