import { useCallback, useSyncExternalStore } from 'react';

/**
 * Unsaved text (a rename, a note to an investor) that must outlive a sign-in: when the session ends,
 * the person signs in again and comes back to the same page with what they had typed. Drafts live in
 * memory while the page is open, shared by every field showing the same draft (the review note sits
 * in the queue and beside the viewer); `keepDraftsThroughSignIn` puts them in sessionStorage just
 * before the browser leaves for the sign-in page, and they are read back once when the app starts.
 */

const storageKey = 'asset-manager.drafts';
const drafts = new Map<string, string>(readKept());
const listeners = new Set<() => void>();

function readKept(): [string, string][] {
  try {
    const kept = JSON.parse(sessionStorage.getItem(storageKey) ?? '[]') as [string, string][];
    sessionStorage.removeItem(storageKey);
    return Array.isArray(kept) ? kept.filter(([k, v]) => typeof k === 'string' && typeof v === 'string') : [];
  } catch {
    return [];
  }
}

function changed() {
  for (const listener of listeners) listener();
}

export function keepDraftsThroughSignIn(): void {
  if (drafts.size > 0) sessionStorage.setItem(storageKey, JSON.stringify([...drafts]));
}

export const hasDraft = (key: string): boolean => drafts.has(key);

/** Like useState for a text field, remembered under `key` until `clear()` (saved or given up). */
export function useDraft(key: string, initial: string) {
  const value = useSyncExternalStore(
    (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    () => drafts.get(key) ?? initial,
  );
  const change = useCallback(
    (next: string) => {
      drafts.set(key, next);
      changed();
    },
    [key],
  );
  const clear = useCallback(() => {
    if (drafts.delete(key)) changed();
  }, [key]);
  return [value, change, clear] as const;
}
