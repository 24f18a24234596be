import { useSyncExternalStore } from 'react';
import type { StoredFile } from '../../lib/platform/model';

/**
 * Files this page still showed that turned out to be deleted elsewhere (another tab, another
 * person): a change or an open answered 404. They leave the list at once, and their slot says so
 * until the person dismisses it, instead of keeping a card that can no longer do anything.
 */
let gone: StoredFile[] = [];
const listeners = new Set<() => void>();

function set(next: StoredFile[]) {
  gone = next;
  for (const listener of listeners) listener();
}

export const goneElsewhere = {
  add(file: StoredFile) {
    if (!gone.some((f) => f.id === file.id)) set([...gone, file]);
  },
  dismiss(fileId: number) {
    set(gone.filter((f) => f.id !== fileId));
  },
};

/** The files of one slot found deleted elsewhere. */
export function useGoneElsewhere(entity: StoredFile['entity'], fileType: string): StoredFile[] {
  const all = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => gone,
  );
  return all.filter(
    (f) => f.fileType === fileType && f.entity.type === entity.type && f.entity.id === entity.id,
  );
}
