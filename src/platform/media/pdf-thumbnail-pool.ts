import { Worker, type WorkerOptions } from 'node:worker_threads';
import type { RenderFailure, ThumbnailJob, ThumbnailReply, WorkerSettings } from './pdf-thumbnail-worker';

/** What the worker imports of pdf.js, in its order (pdf-thumbnail-worker.ts). */
const pdfjsModules = ['pdfjs-dist/legacy/build/pdf.mjs', 'pdfjs-dist/legacy/build/pdf.worker.mjs'];

/** Why a PDF got no thumbnail. Every one of them still lets the upload succeed. */
export type ThumbnailFailure =
  | RenderFailure
  /** Thumbnails are turned off (no workers configured). */
  | 'disabled'
  /** Larger than the configured limit: not worth holding in memory for a picture of page 1. */
  | 'too_large'
  /** Every worker busy and the queue full. */
  | 'busy'
  /** The render ran past its time limit; its worker was ended and replaced. */
  | 'timeout'
  /** The worker died (out of memory, a crash in native code) or could not start. */
  | 'worker_failed'
  | 'closed';

export class PdfThumbnailError extends Error {
  override readonly name = 'PdfThumbnailError';
  constructor(
    readonly reason: ThumbnailFailure,
    /** The name of the underlying error, never its message (that may quote the file). */
    readonly errorName?: string,
  ) {
    super(`no PDF thumbnail: ${reason}`);
  }
}

export interface PdfThumbnail {
  png: Buffer;
  width: number;
  height: number;
}

export interface PdfThumbnailPoolOptions {
  /** Worker threads; 0 turns thumbnails off. */
  workers: number;
  /** Time limit of one render, from the moment a ready worker receives the file. */
  timeoutMs: number;
  /** Larger PDFs are not rendered. */
  maxBytes: number;
  /** Jobs that may wait for a worker; more are refused at once ("busy"). Default 8 per worker. */
  maxQueue?: number;
  /** Longer side of the PNG. Default 1024. */
  maxSide?: number;
  /** Pixels of the PNG at most. Default 1024 × 1024. */
  maxPixels?: number;
  /** Images inside the page with more pixels than this are skipped, not decoded. Default 50 Mpx. */
  maxImagePixels?: number;
  /** JavaScript heap of one worker; past it the worker dies and the job fails. Default 512 MB. */
  maxHeapMb?: number;
  /** A worker that has not loaded pdf.js after this long is given up on. Default 30 s. */
  startTimeoutMs?: number;
  /**
   * Render at the lowest CPU priority (SCHED_IDLE, else nice 19), so that requests win over
   * renders. Default true. Off, renders share the CPU as equals: a machine kept busy by other work
   * still makes thumbnails then (the tests run so), at some cost to the API's latency meanwhile.
   */
  lowPriority?: boolean;
}

export interface PdfThumbnailPool {
  /**
   * Renders page 1 of a PDF of `size` bytes into a PNG. `read` is called only once a worker is
   * free, so jobs waiting in the queue hold no file in memory. Rejects with PdfThumbnailError when
   * no thumbnail can be made, or with `read`'s own error.
   */
  render(size: number, read: () => Promise<Uint8Array>): Promise<PdfThumbnail>;
  /** Refuses waiting and running jobs ("closed") and ends the workers. */
  close(): Promise<void>;
}

/**
 * The worker runs from TypeScript source like the rest of the platform, and Node cannot load a
 * `.ts` worker by itself. Under `tsx` (npm start) the main thread's loader is registered through
 * execArgv, which workers inherit, but on Node 20 a worker's entry module is resolved before those
 * hooks apply ("Unknown file extension .ts"); under Vitest there is no Node loader at all (Vite
 * transforms modules itself), and `new URL('./x.ts', import.meta.url)` alone fails the same way.
 * So the worker starts from a line of plain JavaScript that registers tsx's ESM loader through its
 * API and then imports the real entry: the same line works under tsx (npm start, `node --import
 * tsx`) and under Vitest. Compiled to `.js`, the worker is started directly.
 *
 * pdf.js itself (3 MB of plain JavaScript) is imported before tsx's loader is registered: through
 * the loader it took 3.5 s of CPU to load instead of 0.3 s, seconds of every worker's start and
 * half a minute on a busy machine. The entry's own imports of it then find it loaded.
 */
function startWorker(options: Pick<WorkerOptions, 'resourceLimits' | 'workerData'>): Worker {
  const here = import.meta.url;
  if (new URL(here).pathname.endsWith('.ts')) {
    const entry = new URL('./pdf-thumbnail-worker.ts', here).href;
    // The ESM build of tsx's API: its CommonJS build registers the loader by a wrong relative path.
    const tsxApi = import.meta.resolve('tsx/esm/api');
    const pdfjs = pdfjsModules.map((name) => import.meta.resolve(name));
    const bootstrap =
      `(async () => { for (const m of ${JSON.stringify(pdfjs)}) await import(m);` +
      ` const tsx = await import(${JSON.stringify(tsxApi)}); tsx.register();` +
      ` await import(${JSON.stringify(entry)}); })();`;
    return new Worker(bootstrap, { ...options, eval: true });
  }
  return new Worker(new URL('./pdf-thumbnail-worker.js', here), options);
}

interface Waiting {
  size: number;
  read: () => Promise<Uint8Array>;
  resolve: (thumbnail: PdfThumbnail) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  worker?: Worker;
  ready: boolean;
  startTimer?: NodeJS.Timeout;
  /** The job this slot is reading the file for or rendering. */
  job?: Waiting & { id: number; timer?: NodeJS.Timeout };
}

/**
 * A small pool of worker threads that render PDF cover thumbnails with pdf.js. Rendering never
 * runs on the main thread, at most `workers` render at once, a bounded number wait, and a render
 * past its time limit ends its worker (a stuck pdf.js cannot be interrupted any other way) and a
 * fresh one takes its place.
 */
export function createPdfThumbnailPool(options: PdfThumbnailPoolOptions): PdfThumbnailPool {
  const maxQueue = options.maxQueue ?? 8 * options.workers;
  const maxSide = options.maxSide ?? 1024;
  const maxPixels = options.maxPixels ?? 1024 * 1024;
  const maxImagePixels = options.maxImagePixels ?? 50_000_000;
  const resourceLimits = { maxOldGenerationSizeMb: options.maxHeapMb ?? 512 };
  const workerData: WorkerSettings = { lowPriority: options.lowPriority ?? true };
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const slots: Slot[] = Array.from({ length: options.workers }, () => ({ ready: false }));
  const queue: Waiting[] = [];
  let nextId = 1;
  let closed = false;

  function settle(slot: Slot, outcome: { thumbnail: PdfThumbnail } | { error: unknown }) {
    const job = slot.job;
    if (!job) return;
    slot.job = undefined;
    clearTimeout(job.timer);
    if ('thumbnail' in outcome) job.resolve(outcome.thumbnail);
    else job.reject(outcome.error);
  }

  /** Ends a slot's worker (stuck, crashed or never ready) and fails the job it had. */
  function discardWorker(slot: Slot, failure: ThumbnailFailure, errorName?: string) {
    const worker = slot.worker;
    const wasReady = slot.ready;
    slot.worker = undefined;
    slot.ready = false;
    clearTimeout(slot.startTimer);
    if (worker) void worker.terminate();
    settle(slot, { error: new PdfThumbnailError(failure, errorName) });
    if (closed) return;
    if (wasReady) {
      // Replaced at once, so the next upload does not wait for pdf.js to load.
      spawn(slot);
    } else {
      // A worker that cannot start would make the queue wait forever: the first job in line fails
      // instead, so each job costs at most one start attempt and a broken install cannot loop.
      queue.shift()?.reject(new PdfThumbnailError('worker_failed', errorName));
    }
    pump();
  }

  function spawn(slot: Slot) {
    const worker = startWorker({ resourceLimits, workerData });
    slot.worker = worker;
    slot.ready = false;
    // Idle workers must not keep a process alive that is otherwise done.
    worker.unref();
    slot.startTimer = setTimeout(() => {
      if (slot.worker === worker) discardWorker(slot, 'worker_failed', 'StartTimeout');
    }, startTimeoutMs);
    slot.startTimer.unref();
    worker.on('message', (reply: ThumbnailReply) => {
      if (slot.worker !== worker) return;
      if ('ready' in reply) {
        slot.ready = true;
        clearTimeout(slot.startTimer);
        pump();
        return;
      }
      if (slot.job?.id !== reply.id) return;
      if (reply.ok) {
        const png = Buffer.from(reply.png.buffer, reply.png.byteOffset, reply.png.byteLength);
        settle(slot, { thumbnail: { png, width: reply.width, height: reply.height } });
      } else {
        settle(slot, { error: new PdfThumbnailError(reply.reason, reply.errorName) });
      }
      pump();
    });
    const failed = (error?: Error) => {
      if (slot.worker !== worker) return;
      const code = (error as { code?: unknown } | undefined)?.code;
      discardWorker(slot, 'worker_failed', typeof code === 'string' ? code : (error?.name ?? 'WorkerExit'));
    };
    worker.on('error', failed);
    worker.on('exit', () => failed());
  }

  async function dispatch(slot: Slot, waiting: Waiting) {
    const worker = slot.worker!;
    const job: NonNullable<Slot['job']> = { ...waiting, id: nextId++ };
    slot.job = job;
    let pdf: Uint8Array;
    try {
      pdf = await waiting.read();
      if (pdf.byteLength > options.maxBytes) throw new PdfThumbnailError('too_large');
    } catch (error) {
      if (slot.job === job) settle(slot, { error });
      pump();
      return;
    }
    // Closed, or the worker died, while the file was being read.
    if (slot.job !== job || slot.worker !== worker) return;
    job.timer = setTimeout(() => {
      if (slot.job === job) discardWorker(slot, 'timeout');
    }, options.timeoutMs);
    job.timer.unref();
    const message: ThumbnailJob = { id: job.id, pdf, maxSide, maxPixels, maxImagePixels };
    // Handing the bytes over costs nothing when they own their whole buffer; a view into a larger
    // (pooled) buffer is copied instead, since transferring would take the rest of it along.
    const own = pdf.byteOffset === 0 && pdf.byteLength === pdf.buffer.byteLength;
    worker.postMessage(message, own ? [pdf.buffer as ArrayBuffer] : []);
  }

  function pump() {
    if (closed) return;
    for (const slot of slots) {
      if (queue.length === 0) return;
      if (slot.worker && slot.ready && !slot.job) void dispatch(slot, queue.shift()!);
    }
    // Only as many new workers as there are jobs left to serve.
    let starting = slots.filter((slot) => slot.worker && !slot.ready).length;
    for (const slot of slots) {
      if (queue.length <= starting) return;
      if (!slot.worker) {
        spawn(slot);
        starting++;
      }
    }
  }

  return {
    render(size, read) {
      if (closed) return Promise.reject(new PdfThumbnailError('closed'));
      if (slots.length === 0) return Promise.reject(new PdfThumbnailError('disabled'));
      if (size > options.maxBytes) return Promise.reject(new PdfThumbnailError('too_large'));
      if (queue.length >= maxQueue) return Promise.reject(new PdfThumbnailError('busy'));
      return new Promise<PdfThumbnail>((resolve, reject) => {
        queue.push({ size, read, resolve, reject });
        pump();
      });
    },

    async close() {
      closed = true;
      for (const waiting of queue.splice(0)) waiting.reject(new PdfThumbnailError('closed'));
      await Promise.all(
        slots.map(async (slot) => {
          const worker = slot.worker;
          slot.worker = undefined;
          clearTimeout(slot.startTimer);
          settle(slot, { error: new PdfThumbnailError('closed') });
          await worker?.terminate();
        }),
      );
    },
  };
}
