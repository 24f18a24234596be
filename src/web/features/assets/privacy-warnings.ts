import { useSyncExternalStore } from 'react';

/**
 * Files that should be private (identity and accreditation documents) but that the platform left
 * visible to others, and that the app could not make private after the upload (C3). Their cards say so
 * plainly and offer to try again. Kept for the page's life: a reload shows the file's real state.
 */
const exposed = new Set<number>();
const listeners = new Set<() => void>();
let version = 0;

function changed() {
  version += 1;
  for (const listener of listeners) listener();
}

export const privacyWarnings = {
  add(fileId: number) {
    exposed.add(fileId);
    changed();
  },
  remove(fileId: number) {
    if (exposed.delete(fileId)) changed();
  },
};

/** Whether the file's card must warn that it is visible to others against the app's intent. */
export function usePrivacyWarning(fileId: number): boolean {
  useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => version,
  );
  return exposed.has(fileId);
}
