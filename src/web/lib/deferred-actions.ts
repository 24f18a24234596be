import { useSyncExternalStore } from 'react';

/**
 * Actions that wait a few seconds before anything is sent, so the person can take them back ("Deleted —
 * Undo", "Approved — Undo") on any platform: nothing reaches the platform, or anyone else, until the
 * window has passed. Leaving the page sends what is waiting at once (requests that outlive the page).
 * An action the platform then refuses stays listed with the reason, and its item shows again.
 */
export const undoWindowMs = 8_000;

export interface Waiting<T> {
  key: string;
  item: T;
  /** Set when the platform refused the action: the item is back, and this says why. */
  failure?: string;
}

type Send = (options: { leavingPage: boolean }) => Promise<void>;

export function createDeferredActions<T>() {
  const entries = new Map<string, Waiting<T> & { timer?: ReturnType<typeof setTimeout>; send: Send }>();
  const listeners = new Set<() => void>();
  let snapshot: Waiting<T>[] = [];

  function changed() {
    snapshot = [...entries.values()].map(({ key, item, failure }) => ({
      key,
      item,
      ...(failure ? { failure } : {}),
    }));
    for (const listener of listeners) listener();
  }

  async function commit(key: string, leavingPage: boolean) {
    const entry = entries.get(key);
    if (!entry) return;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    try {
      await entry.send({ leavingPage });
      entries.delete(key);
    } catch (error) {
      entry.failure = error instanceof Error ? error.message : 'The platform did not do it.';
    }
    changed();
  }

  if (typeof window !== 'undefined') {
    window.addEventListener('pagehide', () => {
      for (const [key, entry] of entries) if (entry.timer) void commit(key, true);
    });
  }

  return {
    /** Hides the item now and runs `send` once the undo window has passed. */
    later(key: string, item: T, send: Send): void {
      entries.set(key, { key, item, send, timer: setTimeout(() => void commit(key, false), undoWindowMs) });
      changed();
    },
    /** Takes a waiting action back (or clears a failure notice). */
    undo(key: string): void {
      const entry = entries.get(key);
      if (!entry) return;
      clearTimeout(entry.timer);
      entries.delete(key);
      changed();
    },
    /** Whether an item is hidden because its action is waiting or under way. */
    isWaiting(key: string): boolean {
      const entry = entries.get(key);
      return entry !== undefined && entry.failure === undefined;
    },
    useWaiting(): Waiting<T>[] {
      return useSyncExternalStore(
        (listener) => {
          listeners.add(listener);
          return () => listeners.delete(listener);
        },
        () => snapshot,
      );
    },
  };
}
