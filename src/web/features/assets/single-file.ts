import type { StoredFile } from '../../lib/platform/model';

/** Newest first: by upload time where the platform says it, else by id (ids grow as files arrive). */
function newestFirst(a: StoredFile, b: StoredFile): number {
  if (a.uploadedAt && b.uploadedAt && a.uploadedAt !== b.uploadedAt)
    return a.uploadedAt < b.uploadedAt ? 1 : -1;
  return b.id - a.id;
}

/**
 * A slot that holds one file (a logo, an avatar…) shows the one in use: the newest. Older ones are
 * left from before single-file slots, or from a replace whose clean-up failed; the page lists them
 * apart as not used, so the person can remove them.
 */
export function inUseAndEarlier(files: StoredFile[]): { inUse?: StoredFile; earlier: StoredFile[] } {
  const [inUse, ...earlier] = [...files].sort(newestFirst);
  return { inUse, earlier };
}
