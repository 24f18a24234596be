import { createContext } from 'react';
import type { PhotoQuality } from '../../../../shared/assets/photo-quality';

/** What the browser's photo check found (issue 31). */
export type PhotoVerdict =
  | { kind: 'checked'; quality: PhotoQuality; ms: number }
  /** The browser could not decode it (HEIC without a decoder, a broken file): no opinion. */
  | { kind: 'skipped'; reason: string };

export interface PhotoCheckRequest {
  id: number;
  file: File;
  /** The photo's size after EXIF orientation, as the browser read it without drawing it. */
  width: number;
  height: number;
}
export type PhotoCheckReply = PhotoVerdict & { id: number };

/** Checks a chosen photo. Behind an interface so that tests in jsdom (no OffscreenCanvas) give answers. */
export interface PhotoChecker {
  check(file: File, size: { width: number; height: number }): Promise<PhotoVerdict>;
  /** Gets ready for a check (a slot that checks photos is on screen): the first then waits less. */
  prepare?(): void;
}

/**
 * The real one: one Web Worker, started at the first check and kept for the page's life, so the main
 * thread stays free while a 12 MP photo is decoded (INP unaffected). Where workers or OffscreenCanvas
 * are missing the check is skipped, never the upload.
 */
export function workerPhotoChecker(): PhotoChecker {
  let worker: Worker | undefined;
  let nextId = 1;
  const waiting = new Map<number, (verdict: PhotoVerdict) => void>();
  const start = () => {
    const started = new Worker(new URL('./photo-check.worker.ts', import.meta.url), { type: 'module' });
    started.onmessage = (event: MessageEvent<PhotoCheckReply>) => {
      const { id, ...verdict } = event.data;
      // For the end-to-end test and anyone profiling: how long the worker took, in the page's timeline.
      // The measures too, so the test can compare them with the platform's on the same file.
      if (verdict.kind === 'checked')
        performance.mark('photo-check', { detail: { ms: verdict.ms, measures: verdict.quality.measures } });
      waiting.get(id)?.(verdict);
      waiting.delete(id);
    };
    started.onerror = () => {
      for (const resolve of waiting.values()) resolve({ kind: 'skipped', reason: 'the check stopped' });
      waiting.clear();
      worker = undefined;
    };
    return started;
  };
  const supported = () => typeof Worker !== 'undefined' && typeof OffscreenCanvas !== 'undefined';
  return {
    prepare() {
      if (supported()) worker ??= start();
    },
    check(file, size) {
      if (!supported())
        return Promise.resolve({ kind: 'skipped', reason: 'this browser cannot check photos' });
      worker ??= start();
      const id = nextId++;
      return new Promise((resolve) => {
        waiting.set(id, resolve);
        const request: PhotoCheckRequest = { id, file, ...size };
        worker!.postMessage(request);
      });
    },
  };
}

let shared: PhotoChecker | undefined;
/** The app's checker, made on first use. */
export const appPhotoChecker: PhotoChecker = {
  check: (file, size) => (shared ??= workerPhotoChecker()).check(file, size),
  prepare: () => (shared ??= workerPhotoChecker()).prepare?.(),
};

/** Which checker the slots use: the worker's, unless a test provides another. */
export const PhotoCheckerContext = createContext<PhotoChecker>(appPhotoChecker);
