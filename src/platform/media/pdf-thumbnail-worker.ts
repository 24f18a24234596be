/**
 * Runs inside a worker thread of the PDF thumbnail pool (pdf-thumbnail-pool.ts), never on the main
 * thread: pdf.js parses and paints synchronously and holds its thread for tens to hundreds of
 * milliseconds a page. One job at a time; the pool times jobs out and replaces a stuck worker.
 */
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { setPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
// The legacy build is the one pdf.js supports on Node: the modern build targets current browsers.
import { getDocument, VerbosityLevel } from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Given by the pool when it starts the worker. */
export interface WorkerSettings {
  /** Lower this thread's priority once pdf.js has loaded (below). */
  lowPriority: boolean;
}

export interface ThumbnailJob {
  id: number;
  /** The whole PDF; its buffer is transferred here, not copied. */
  pdf: Uint8Array;
  /** The longer side of the PNG, in pixels. */
  maxSide: number;
  /** width × height of the PNG at most (binds before maxSide only for a configured large side). */
  maxPixels: number;
  /** Images inside the page larger than this (width × height) are left out, not decoded. */
  maxImagePixels: number;
}

/** Why no thumbnail came out of a PDF that the worker did read. */
export type RenderFailure = 'encrypted' | 'invalid_pdf' | 'render_failed';

type RenderReply =
  | { id: number; ok: true; png: Uint8Array; width: number; height: number }
  | { id: number; ok: false; reason: RenderFailure; errorName: string };

export type ThumbnailReply =
  | RenderReply
  /** Sent once after pdf.js has loaded: the pool starts a job's clock only after this. */
  | { ready: true };

// pdf.js parses in a "worker" of its own; on Node that is a fake one on this same thread, whose
// code it would import at the first document. Loaded now, before this worker says it is ready, so
// that the first upload's time limit is not spent loading code. (Untyped module: imported by name.)
const pdfjsWorkerModule: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import(pdfjsWorkerModule);

// A render competes for the CPU with the event loop that answers API requests; on a machine with
// few cores that shows in the API's tail latency (S9). Renders can wait a little, requests should
// not. A lower nice value alone did not help (S9 2.1–3.2 at nice 10 or 19 on 2 cores): the
// scheduler lets a running thread finish its slice before a woken one runs, so a request waited up
// to a few milliseconds behind the render. SCHED_IDLE threads give way at once (S9 1.8–2.2, with
// the same uploads and no thumbnails at 1.2–1.3). Node has no call for a thread's scheduling
// policy, so util-linux's `chrt` sets it, once per worker; on Linux a thread id is a process id to
// both, found through /proc/thread-self. The price: on a saturated machine renders wait, and may
// run past their time limit (the upload then goes without a thumbnail). Elsewhere, or without
// `chrt`, the thread keeps the lowest nice value it could get, or the default priority. Lowered
// only once pdf.js has loaded, so that a busy machine does not hold up the worker's start. A pool
// may ask for none of this (lowPriority: false): then renders compete with requests as equals.
if ((workerData as WorkerSettings | undefined)?.lowPriority !== false) {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    setPriority(tid, 19);
    execFileSync('chrt', ['--idle', '--pid', '0', String(tid)], { stdio: 'ignore', timeout: 2000 });
  } catch {
    // Not Linux, or no chrt: a lower priority, or none, is all this thread gets.
  }
}

// Fonts a PDF names without embedding them (Helvetica and the other 13 standard fonts) come from
// pdf.js's own files, so text renders the same on every machine. pdf.js wants a trailing slash.
const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));
const standardFontDataUrl = join(pdfjsRoot, 'standard_fonts') + '/';
const cMapUrl = join(pdfjsRoot, 'cmaps') + '/';
const wasmUrl = join(pdfjsRoot, 'wasm') + '/';

/** Scale that fits the page within both limits; pages smaller than that are drawn larger (vectors). */
export function fitScale(width: number, height: number, maxSide: number, maxPixels: number) {
  return Math.min(maxSide / Math.max(width, height), Math.sqrt(maxPixels / (width * height)));
}

interface NapiCanvas {
  width: number;
  height: number;
  toBuffer(mime: 'image/png'): Buffer;
}

async function render(job: ThumbnailJob): Promise<RenderReply> {
  const task = getDocument({
    data: job.pdf,
    // PostScript functions are compiled with `new Function` when eval is allowed: never for
    // untrusted files (CVE-2024-4367 was this path).
    isEvalSupported: false,
    enableXfa: false,
    maxImageSize: job.maxImagePixels,
    standardFontDataUrl,
    cMapUrl,
    wasmUrl,
    // Warnings can quote the file's bytes; the pool logs a reason of its own instead.
    verbosity: VerbosityLevel.ERRORS,
  });
  try {
    const doc = await task.promise;
    const page = await doc.getPage(1);
    const natural = page.getViewport({ scale: 1 });
    const scale = fitScale(natural.width, natural.height, job.maxSide, job.maxPixels);
    if (!Number.isFinite(scale) || scale <= 0) throw new Error('the first page has no area');
    const viewport = page.getViewport({ scale });
    let width = Math.max(1, Math.min(job.maxSide, Math.round(viewport.width)));
    let height = Math.max(1, Math.min(job.maxSide, Math.round(viewport.height)));
    // Rounding up may cross the pixel limit by a row or a column.
    if (width * height > job.maxPixels) {
      width = Math.max(1, Math.floor(viewport.width));
      height = Math.max(1, Math.floor(viewport.height));
    }
    // The document's own factory: the canvas pdf.js brings (@napi-rs/canvas), the one it draws on.
    const factory = doc.canvasFactory as {
      create(w: number, h: number): { canvas: NapiCanvas; context: CanvasRenderingContext2D };
    };
    const { canvas, context } = factory.create(width, height);
    await page.render({
      canvas: canvas as unknown as HTMLCanvasElement,
      canvasContext: context,
      viewport,
      // A PDF page is opaque paper; without this a transparent page would come out black in viewers.
      background: 'rgb(255, 255, 255)',
    }).promise;
    // Synchronous encode: this thread has nothing else to do, and the libuv pool stays free for
    // the main thread's file I/O and sharp.
    const png = new Uint8Array(canvas.toBuffer('image/png'));
    page.cleanup();
    return { id: job.id, ok: true, png, width, height };
  } catch (error) {
    const errorName = (error as { name?: unknown } | null)?.name;
    const name = typeof errorName === 'string' ? errorName : 'Error';
    const reason: RenderFailure =
      name === 'PasswordException'
        ? 'encrypted'
        : name === 'InvalidPDFException'
          ? 'invalid_pdf'
          : 'render_failed';
    return { id: job.id, ok: false, reason, errorName: name };
  } finally {
    await task.destroy();
  }
}

const port = parentPort;
if (port) {
  port.on('message', (job: ThumbnailJob) => {
    void render(job).then((reply) => {
      port.postMessage(reply, reply.ok ? [reply.png.buffer as ArrayBuffer] : []);
    });
  });
  port.postMessage({ ready: true } satisfies ThumbnailReply);
}
