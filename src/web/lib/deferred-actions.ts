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

/** What keeps a window from running out: the pointer over its notice, or keyboard focus in it. */
type Hold = 'pointer' | 'focus';

interface Entry<T> extends Waiting<T> {
  send: Send;
  /** Running while the window counts down; absent while held, sending, or refused. */
  timer?: ReturnType<typeof setTimeout>;
  holds: Set<Hold>;
  /** Between the end of the window and the platform's answer. */
  sending: boolean;
}

export function createDeferredActions<T>() {
  const entries = new Map<string, Entry<T>>();
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

  /** (Re)starts the whole window: it never runs out while the person is reading the notice. */
  function countDown(key: string, entry: Entry<T>) {
    clearTimeout(entry.timer);
    entry.timer = setTimeout(() => void commit(key, false), undoWindowMs);
  }

  async function commit(key: string, leavingPage: boolean) {
    const entry = entries.get(key);
    if (!entry || entry.sending) return;
    clearTimeout(entry.timer);
    entry.timer = undefined;
    entry.sending = true;
    try {
      await entry.send({ leavingPage });
      entries.delete(key);
    } catch (error) {
      entry.failure = error instanceof Error ? error.message : 'The platform did not do it.';
    }
    entry.sending = false;
    changed();
  }

  const waiting = (entry: Entry<T>) => !entry.sending && entry.failure === undefined;

  if (typeof window !== 'undefined') {
    window.addEventListener('pagehide', () => {
      for (const [key, entry] of entries) if (waiting(entry)) void commit(key, true);
    });
  }

  /**
   * WCAG 2.2.1: the window pauses while the pointer is over the action's notice or keyboard focus is
   * inside it, and starts again at its full length when both have left.
   */
  function hold(key: string, why: Hold): void {
    const entry = entries.get(key);
    if (!entry || !waiting(entry)) return;
    entry.holds.add(why);
    clearTimeout(entry.timer);
    entry.timer = undefined;
  }

  function release(key: string, why: Hold): void {
    const entry = entries.get(key);
    if (!entry || !waiting(entry) || !entry.holds.delete(why) || entry.holds.size > 0) return;
    countDown(key, entry);
  }

  return {
    /** Hides the item now and runs `send` once the undo window has passed. */
    later(key: string, item: T, send: Send): void {
      const entry: Entry<T> = { key, item, send, holds: new Set(), sending: false };
      entries.set(key, entry);
      countDown(key, entry);
      changed();
    },
    hold,
    release,
    /** Handlers for a notice's element that hold its window while it is pointed at or focused. */
    holdProps(key: string) {
      return {
        // A move, not an enter: a notice that appears under a resting pointer (where the Delete
        // button was) is not being read, and must not hold the window for ever.
        onPointerMove: () => hold(key, 'pointer'),
        onPointerLeave: () => release(key, 'pointer'),
        onFocus: () => hold(key, 'focus'),
        onBlur: (event: { currentTarget: Element; relatedTarget: Element | null }) => {
          if (!event.currentTarget.contains(event.relatedTarget)) release(key, 'focus');
        },
      };
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
