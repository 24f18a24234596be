import type { FileList } from '../../../lib/file-lists';
import { useState } from 'react';
import type { Crop } from '../../../../shared/assets/crop';
import { ApiError, messageOf } from '../../../lib/platform/errors';
import type { FileChanges, StoredFile } from '../../../lib/platform/model';
import { useServices } from '../../../lib/services';
import { useLeaveList } from '../api/asset-queries';

/**
 * "Edit crop" on a stored image: the original is fetched for the dialog (a file deleted elsewhere
 * leaves the list; another failure is said on the card), and the new crop (or none) is saved in
 * the file's `meta`.
 */
export function useCropEdit(file: StoredFile, list: FileList, change: (changes: FileChanges) => void) {
  const { platform } = useServices();
  const leaveList = useLeaveList(list);
  // The original's address while the dialog is open.
  const [source, setSource] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  return {
    source,
    error,
    clearError: () => setError(null),
    async start() {
      setError(null);
      try {
        setSource((await platform.address(file.id)).url);
      } catch (failure) {
        if (failure instanceof ApiError && failure.status === 404) leaveList(file);
        else setError(messageOf(failure));
      }
    },
    save(crop: Crop | null) {
      setSource(null);
      const meta = { ...file.meta };
      if (crop) meta.crop = crop;
      else delete meta.crop;
      change({ meta });
    },
    cancel: () => setSource(null),
  };
}
