import { ApiError, messageOf } from '../../lib/platform/errors';
import type { Platform } from '../../lib/platform/platform';
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

/**
 * After a replacement is stored, the files it replaces are removed: never before, so a failed upload
 * leaves the old file in place. A file already gone is fine. Returns what could not be removed, in words.
 */
export async function removeReplaced(
  platform: Platform,
  replaced: Pick<StoredFile, 'id' | 'name' | 'etag'>[],
): Promise<string | null> {
  const problems: string[] = [];
  for (const file of replaced) {
    try {
      await platform.remove(file);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) continue;
      problems.push(`The new file is in place, but ${file.name} could not be removed: ${messageOf(error)}`);
    }
  }
  return problems.length > 0 ? problems.join(' ') : null;
}
