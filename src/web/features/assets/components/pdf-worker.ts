import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';

/** The worker's script failed to load, or the worker broke. */
export class PdfWorkerFailed extends Error {}

export interface PdfWorkerThread {
  port: Worker;
  /** Rejects with PdfWorkerFailed if the worker's script fails to load or it breaks; never resolves. */
  failed: Promise<never>;
}

let thread: PdfWorkerThread | undefined;

/**
 * The page's one pdf.js worker thread, started at the first sign that a PDF will be viewed. Its script
 * is the largest part of viewing a PDF (≈ 300 KB compressed); started here it downloads beside pdf.js
 * itself instead of after it, which on a phone saves a round trip and the library's whole download
 * time (performance.md W4). Messages sent before the script has run wait in the worker's queue, so
 * pdf.js may attach to it at any time. A module of its own, so that nothing of pdf.js comes with it.
 */
export function pdfWorkerThread(): PdfWorkerThread {
  if (thread) return thread;
  const port = new Worker(workerUrl, { type: 'module' });
  const failed = new Promise<never>((_, reject) =>
    port.addEventListener('error', () => reject(new PdfWorkerFailed('The PDF worker failed')), {
      once: true,
    }),
  );
  failed.catch(() => undefined); // whoever waits on it handles it; unused, it is no error
  return (thread = { port, failed });
}

/** Ends a worker that failed, so that the next PDF starts a fresh one. */
export function forgetPdfWorkerThread(failed: PdfWorkerThread) {
  if (thread !== failed) return;
  failed.port.terminate();
  thread = undefined;
}
