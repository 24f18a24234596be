import { useQueryClient } from '@tanstack/react-query';
import type { FileList } from '../../../lib/file-lists';
import { useEffect, useRef } from 'react';
import { rememberUpload } from '../../../lib/browser-memory';
import type { EntityRef, StoredFile } from '../../../lib/platform/model';
import { useDeleteLater } from '../api/asset-queries';
import { privacyWarnings } from '../privacy-warnings';
import { useUploads, type UploadItem } from '../upload/use-uploads';

/**
 * A slot's uploads, and what follows once one is stored: the list is read again, the file is
 * remembered (a platform that does not list an entity's files still shows it here), a privacy the
 * platform did not apply is warned about, and the file it replaces goes.
 */
export function useReplacingUploads({
  entity,
  fileType,
  files,
  list,
  onForbidden,
}: {
  entity: EntityRef;
  fileType: string;
  /** The slot's files as listed now. */
  files: StoredFile[];
  list: FileList;
  onForbidden: () => void;
}) {
  const queryClient = useQueryClient();
  // The latest list, for the ETag of a file being replaced when its replacement is stored.
  const latest = useRef(files);
  useEffect(() => {
    latest.current = files;
  }, [files]);
  const deleteLater = useDeleteLater(list, onForbidden);

  /**
   * The new file is stored: now, and only now, the one it replaces goes — after the same undo window
   * as a delete, so "Undo" can still put the old one back.
   */
  function replace(replaced: NonNullable<UploadItem['replaces']>, by: StoredFile) {
    for (const old of replaced) {
      const current = latest.current.find((f) => f.id === old.id) ?? old;
      deleteLater({ ...current, replacedBy: by });
    }
  }

  return useUploads({
    entity,
    fileType,
    onUploaded: ({ file, privacyNotApplied }, { replaces }) => {
      rememberUpload(entity, file.id);
      if (privacyNotApplied) privacyWarnings.add(file.id);
      void queryClient.invalidateQueries({ queryKey: list.queryKey });
      if (replaces?.length) replace(replaces, file);
    },
    onForbidden,
  });
}
