import type { FileList } from '../../../lib/file-lists';
import { ApiError } from '../../../lib/platform/errors';
import type { FileChanges, StoredFile } from '../../../lib/platform/model';
import { useUpdateFile } from '../api/asset-queries';
import { privacyWarnings } from '../privacy-warnings';

/**
 * Changes to one file (rename, privacy, crop), shown at once and rolled back if refused: a file made
 * private loses its privacy warning, and a 403 makes the page read-only. `update` is the mutation,
 * for its error and whether it is under way.
 */
export function useFileChange(file: StoredFile, list: FileList, onForbidden: () => void) {
  const update = useUpdateFile(list, file.id);
  const change = (changes: FileChanges, onSettled?: () => void) =>
    update.mutate(
      { file, changes },
      {
        onSuccess: (_stored, { changes: made }) => {
          if (made.private === true) privacyWarnings.remove(file.id);
        },
        onError: (error) => {
          if (error instanceof ApiError && error.status === 403) onForbidden();
        },
        onSettled,
      },
    );
  return { update, change };
}
