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

/** One undo window's actions, for the pages that show or hide their items and the notices that undo them. */
export interface DeferredActions<T> {
  /** Hides the item now and runs `send` once the undo window has passed. */
  later(key: string, item: T, send: Send): void;
  /**
   * WCAG 2.2.1: the window pauses while the pointer is over the action's notice or keyboard focus is
   * inside it, and starts again at its full length when both have left.
   */
  hold(key: string, why: Hold): void;
  release(key: string, why: Hold): void;
  /** Handlers for a notice's element that hold its window while it is pointed at or focused. */
  holdProps(key: string): {
    onPointerMove: () => void;
    onPointerLeave: () => void;
    onFocus: () => void;
    onBlur: (event: { currentTarget: Element; relatedTarget: Element | null }) => void;
  };
  /** Takes a waiting action back (or clears a failure notice). */
  undo(key: string): void;
  /** Whether an item is hidden because its action is waiting or under way. */
  isWaiting(key: string): boolean;
  /** The actions waiting or refused, for React: the component renders again when they change. */
  useWaiting(): Waiting<T>[];
}

/** What one set of deferred actions keeps. */
interface State<T> {
  readonly entries: Map<string, Entry<T>>;
  readonly listeners: Set<() => void>;
  /** What `useWaiting` gives: a new array at each change, the same one in between. */
  snapshot: Waiting<T>[];
}

export function createDeferredActions<T>(): DeferredActions<T> {
  const state: State<T> = { entries: new Map(), listeners: new Set(), snapshot: [] };
  if (typeof window !== 'undefined') window.addEventListener('pagehide', () => sendAllNow(state));
  return {
    later: (key, item, send) => later(state, key, item, send),
    hold: (key, why) => hold(state, key, why),
    release: (key, why) => release(state, key, why),
    holdProps: (key) => holdProps(state, key),
    undo: (key) => undo(state, key),
    isWaiting: (key) => {
      const entry = state.entries.get(key);
      return entry !== undefined && entry.failure === undefined;
    },
    useWaiting: () =>
      useSyncExternalStore(
        (listener) => subscribe(state, listener),
        () => state.snapshot,
      ),
  };
}

function later<T>(state: State<T>, key: string, item: T, send: Send): void {
  const entry: Entry<T> = { key, item, send, holds: new Set(), sending: false };
  state.entries.set(key, entry);
  countDown(state, key, entry);
  changed(state);
}

function undo<T>(state: State<T>, key: string): void {
  const entry = state.entries.get(key);
  if (!entry) return;
  clearTimeout(entry.timer);
  state.entries.delete(key);
  changed(state);
}

function subscribe<T>(state: State<T>, listener: () => void): () => void {
  state.listeners.add(listener);
  return () => state.listeners.delete(listener);
}

function changed<T>(state: State<T>) {
  state.snapshot = [...state.entries.values()].map(({ key, item, failure }) => ({
    key,
    item,
    ...(failure ? { failure } : {}),
  }));
  for (const listener of state.listeners) listener();
}

/** Still in its window: neither being sent nor refused. */
const waiting = <T>(entry: Entry<T>) => !entry.sending && entry.failure === undefined;

/** (Re)starts the whole window: it never runs out while the person is reading the notice. */
function countDown<T>(state: State<T>, key: string, entry: Entry<T>) {
  clearTimeout(entry.timer);
  entry.timer = setTimeout(() => void commit(state, key, false), undoWindowMs);
}

async function commit<T>(state: State<T>, key: string, leavingPage: boolean) {
  const entry = state.entries.get(key);
  if (!entry || entry.sending) return;
  clearTimeout(entry.timer);
  entry.timer = undefined;
  entry.sending = true;
  try {
    await entry.send({ leavingPage });
    state.entries.delete(key);
  } catch (error) {
    entry.failure = error instanceof Error ? error.message : 'The platform did not do it.';
  }
  entry.sending = false;
  changed(state);
}

/** The page is going: what is still waiting goes now, as requests that outlive the page. */
function sendAllNow<T>(state: State<T>) {
  for (const [key, entry] of state.entries) if (waiting(entry)) void commit(state, key, true);
}

function hold<T>(state: State<T>, key: string, why: Hold): void {
  const entry = state.entries.get(key);
  if (!entry || !waiting(entry)) return;
  entry.holds.add(why);
  clearTimeout(entry.timer);
  entry.timer = undefined;
}

function release<T>(state: State<T>, key: string, why: Hold): void {
  const entry = state.entries.get(key);
  if (!entry || !waiting(entry) || !entry.holds.delete(why) || entry.holds.size > 0) return;
  countDown(state, key, entry);
}

function holdProps<T>(state: State<T>, key: string) {
  return {
    // A move, not an enter: a notice that appears under a resting pointer (where the Delete
    // button was) is not being read, and must not hold the window for ever.
    onPointerMove: () => hold(state, key, 'pointer'),
    onPointerLeave: () => release(state, key, 'pointer'),
    onFocus: () => hold(state, key, 'focus'),
    onBlur: (event: { currentTarget: Element; relatedTarget: Element | null }) => {
      if (!event.currentTarget.contains(event.relatedTarget)) release(state, key, 'focus');
    },
  };
}
