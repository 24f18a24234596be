import { readFile } from 'node:fs/promises';
import { setFlagsFromString } from 'node:v8';
import { Worker, type WorkerOptions } from 'node:worker_threads';
import sharp from 'sharp';
import type { BlobRange } from '../storage/blob-store';
import type {
  RangeAnswer,
  RenderFailure,
  ThumbnailJob,
  ThumbnailReply,
  WorkerSettings,
} from './pdf-thumbnail-worker';

/** Why a PDF got no thumbnail. */
export type ThumbnailFailure =
  | RenderFailure
  /** Thumbnails are turned off (no workers configured). */
  | 'disabled'
  /** Larger than the configured limit. */
  | 'too_large'
  /** Every worker busy and the queue full. */
  | 'busy'
  /** The render used more CPU time than its limit; its worker was ended and replaced. */
  | 'timeout'
  /** The worker died (out of memory, a crash in native code) or could not start. */
  | 'worker_failed'
  /** The pool was closed (the platform stopping): not the PDF's fault. */
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

/** A stored PDF as the pool reads it: its size, and its bytes a range at a time. */
export interface PdfSource {
  size: number;
  /** The bytes of an inclusive range; rejects when they cannot be read (the file was deleted). */
  read(range: BlobRange): Promise<Uint8Array>;
}

export interface PdfThumbnailPoolOptions {
  /** Worker threads; 0 turns thumbnails off. */
  workers: number;
  /**
   * Time limit of one render, in CPU time of its worker where the platform can tell (Linux), else
   * from the moment a ready worker receives the job. A render that waits for a CPU is not stuck.
   */
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
  /**
   * JavaScript heap of one worker; past it the worker dies and the job fails. Default 128 MB: page 1
   * of a 12-slide deck, or a cover with a 12-megapixel photo, renders within 32 MB; the rest is room
   * for large embedded fonts and CMaps. Decoded images are not on this heap: `maxImagePixels` bounds them.
   */
  maxHeapMb?: number;
  /** A worker that has not loaded pdf.js after this long is given up on. Default 60 s. */
  startTimeoutMs?: number;
  /**
   * A render still running after this much time of the clock on the wall is ended even if it got
   * little CPU (a wait that will never end). Default 20 × timeoutMs, at least 2 minutes.
   */
  wallTimeoutMs?: number;
  /**
   * Render at the lowest CPU priority (nice 19, then SCHED_IDLE), so that requests win over renders.
   * Default true. Off, renders share the CPU as equals: a machine kept busy by other work still makes
   * thumbnails then (the tests run so), at some cost to the API's latency meanwhile.
   */
  lowPriority?: boolean;
}

export interface PdfThumbnailPool {
  /**
   * Renders page 1 of a PDF into a PNG. Its first chunk is read through `source.read` once a worker
   * is free for it, and the worker asks for any other ranges pdf.js needs the same way, so neither
   * thread holds the whole file. Rejects with PdfThumbnailError when no thumbnail can be made.
   */
  render(source: PdfSource): Promise<PdfThumbnail>;
  /** Whether a render handed over now would begin at once: a worker is ready and idle, and no job waits. */
  hasIdleWorker(): boolean;
  /** Starts every worker now (the platform does at start), so the first PDF does not wait for pdf.js. */
  start(): void;
  /** Refuses waiting and running jobs ("closed") and ends the workers. */
  close(): Promise<void>;
}

/**
 * The first thing a worker runs, before it loads anything (plain CommonJS: no loader yet): the
 * lowest nice value for its thread (on Linux a thread id is a process id to setpriority, found
 * through /proc/thread-self). Workers start with the platform, and loading pdf.js (about half a
 * second of CPU each) at normal priority held up the platform's first requests on a busy machine.
 * Renders go lower still (SCHED_IDLE) at the worker's first job: pdf-thumbnail-worker.ts says why,
 * and why not here (it takes a child process, and forking the platform at its start was worse).
 */
const lowerPriority = `try {
  require('node:os').setPriority(Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop()), 19);
} catch {}`;

/**
 * The worker runs from TypeScript source like the rest of the platform, and Node cannot load a
 * `.ts` worker by itself. Under `tsx` (npm start) the main thread's loader is registered through
 * execArgv, which workers inherit, but on Node 20 a worker's entry module is resolved before those
 * hooks apply ("Unknown file extension .ts"); under Vitest there is no Node loader at all (Vite
 * transforms modules itself), and `new URL('./x.ts', import.meta.url)` alone fails the same way.
 * So the worker starts from a few lines of plain JavaScript that lower its priority, register
 * tsx's ESM loader through its API and then import the real entry: the same lines work under tsx
 * (npm start, `node --import tsx`) and under Vitest. pdf.js (3 MB of plain JavaScript) is imported
 * before the loader is registered: through tsx it was transformed again at every start (8–12 s of
 * a worker's start on a busy machine, against about 1 s), and once loaded the entry's imports of
 * it are served from the module cache. Compiled to `.js`, the entry is imported directly.
 */
function startWorker(options: Pick<WorkerOptions, 'resourceLimits' | 'workerData'>): Worker {
  const lowered = (options.workerData as WorkerSettings).lowPriority;
  const here = import.meta.url;
  const load = (url: string) => `import(${JSON.stringify(url)})`;
  let entry: string;
  if (new URL(here).pathname.endsWith('.ts')) {
    // The ESM build of tsx's API: its CommonJS build registers the loader by a wrong relative path.
    const tsxApi = import.meta.resolve('tsx/esm/api');
    const plain = ['pdfjs-dist/legacy/build/pdf.mjs', 'pdfjs-dist/legacy/build/pdf.worker.mjs'].map((m) =>
      load(import.meta.resolve(m)),
    );
    entry =
      `Promise.all([${plain.join(', ')}])` +
      `.then(() => ${load(tsxApi)})` +
      `.then((tsx) => { tsx.register(); return ${load(new URL('./pdf-thumbnail-worker.ts', here).href)}; });`;
  } else {
    entry = `${load(new URL('./pdf-thumbnail-worker.js', here).href)};`;
  }
  return new Worker(lowered ? `${lowerPriority}\n${entry}` : entry, { ...options, eval: true });
}

/**
 * How far V8 lets a heap grow between two full collections, for every heap of the process: twice
 * what it kept live. V8 picks the factor from the heap's limit, and below 2 GB it is about 1.3: a
 * worker's 128 MB heap (20 MB live after a collection) ran a full collection every other render of
 * a 12-slide deck, 10–15 ms of marking each, and a render took twice the CPU it takes on a large
 * heap. A worker thread cannot have V8 flags of its own (a render process can: tried and not kept,
 * docs/benchmarks.md, "PDF thumbnails"), and a larger heap limit would give up the bound on its
 * memory. On the main thread this replaces the factor V8 would have chosen by the allocation rate
 * (1.1 to 4): measured beside the platform before it (npm run bench:against), neither the API's CPU
 * per request nor the process's memory moved beyond the noise (same document). The flag exists in
 * V8 from Node 20 to 24.
 */
function letHeapsGrowTwofold() {
  setFlagsFromString('--heap-growing-percent=100');
}

/** pdf.js's unit of reading (its default): the first chunk goes with the job, the rest by range. */
const chunkBytes = 64 * 1024;

/** The list to transfer `bytes` with, when they are the whole of their buffer (else they are copied). */
const transferList = (bytes: Uint8Array) =>
  bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? [bytes.buffer as ArrayBuffer] : [];

/** CPU time (user + system) a thread of this process has used, in ms; undefined where unknown. */
async function threadCpuMs(threadId: number | undefined): Promise<number | undefined> {
  if (threadId === undefined) return undefined;
  try {
    const stat = await readFile(`/proc/self/task/${threadId}/stat`, 'utf8');
    // Fields after the command (in parentheses, which may hold spaces): utime and stime are the
    // 12th and 13th, in clock ticks (100 a second on Linux).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The PNG of a page a worker drew, encoded by libvips (sharp, as renditions are) rather than by the
 * canvas: for a 1024 × 576 slide the canvas's own PNG encoder took 45–75 ms, two thirds of the
 * whole render, where libvips takes about 5 ms and writes a smaller file (98 KB against 126) of
 * the same pixels. RGB without alpha: the page is drawn on opaque white paper. This runs on libuv's
 * thread pool at normal priority, not at the worker's lowest: a few milliseconds of CPU per
 * thumbnail where the canvas's encoder held the worker's thread ten times as long. zlib's level 2
 * rather than sharp's 6: the PNG is the source the previews' renditions are made from, and level 2
 * encodes a slide in 4.9 ms of CPU against 7.2, for 103 KB against 98 (a scanned page: the same
 * time and size at either level; level 1 made it 40% larger).
 */
async function encodePng(page: { pixels: Uint8Array; width: number; height: number }): Promise<PdfThumbnail> {
  const { pixels, width, height } = page;
  const png = await sharp(pixels, { raw: { width, height, channels: 4 } })
    .removeAlpha()
    .png({ compressionLevel: 2 })
    .toBuffer();
  return { png, width, height };
}

interface Waiting {
  source: PdfSource;
  resolve: (thumbnail: PdfThumbnail) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  worker?: Worker;
  ready: boolean;
  threadId?: number;
  startTimer?: NodeJS.Timeout;
  /** The job this slot is rendering, or encoding the PNG of (its worker waits until then). */
  job?: Waiting & { id: number; timer?: NodeJS.Timeout };
}

/**
 * A small pool of worker threads that render PDF cover thumbnails with pdf.js. Rendering never
 * runs on the main thread, at most `workers` render at once, a bounded number wait, and a render
 * past its time limit ends its worker (a stuck pdf.js cannot be interrupted any other way) and a
 * fresh one takes its place. Memory is bounded per worker: its JavaScript heap (`maxHeapMb`), the
 * 64 KB ranges pdf.js asked for, one canvas of at most `maxPixels` (and its pixels while their PNG
 * is encoded), and images up to `maxImagePixels`.
 */
export function createPdfThumbnailPool(options: PdfThumbnailPoolOptions): PdfThumbnailPool {
  const maxQueue = options.maxQueue ?? 8 * options.workers;
  const maxSide = options.maxSide ?? 1024;
  const maxPixels = options.maxPixels ?? 1024 * 1024;
  const maxImagePixels = options.maxImagePixels ?? 50_000_000;
  const resourceLimits = { maxOldGenerationSizeMb: options.maxHeapMb ?? 128 };
  const workerData: WorkerSettings = { lowPriority: options.lowPriority ?? true };
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const wallTimeoutMs = options.wallTimeoutMs ?? Math.max(120_000, 20 * options.timeoutMs);
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
      // Replaced at once, so the next PDF does not wait for pdf.js to load.
      spawn(slot);
    } else {
      // A worker that cannot start would make the queue wait forever: the first job in line fails
      // instead, so each job costs at most one start attempt and a broken install cannot loop.
      queue.shift()?.reject(new PdfThumbnailError('worker_failed', errorName));
    }
    pump();
  }

  /** Answers a worker's request for bytes of its job's PDF. */
  async function answerRead(slot: Slot, worker: Worker, request: { id: number; begin: number; end: number }) {
    const job = slot.job;
    if (!job || job.id !== request.id) return;
    let answer: RangeAnswer;
    try {
      const { begin, end } = request;
      if (!Number.isSafeInteger(begin) || !Number.isSafeInteger(end) || begin < 0 || end <= begin)
        throw new RangeError('a range outside the file');
      const bytes = await job.source.read({ start: begin, end: Math.min(end, job.source.size) - 1 });
      answer = { data: { id: request.id, begin, bytes } };
    } catch (error) {
      answer = { readFailed: { id: request.id, errorName: (error as Error | null)?.name ?? 'Error' } };
    }
    // The job may have ended (timeout, close) while the bytes were read.
    if (slot.worker !== worker || slot.job !== job) return;
    worker.postMessage(answer, 'data' in answer ? transferList(answer.data.bytes) : []);
  }

  function spawn(slot: Slot) {
    letHeapsGrowTwofold();
    const worker = startWorker({ resourceLimits, workerData });
    slot.worker = worker;
    slot.ready = false;
    slot.threadId = undefined;
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
        slot.threadId = reply.threadId;
        clearTimeout(slot.startTimer);
        pump();
        return;
      }
      if ('read' in reply) {
        void answerRead(slot, worker, reply.read);
        return;
      }
      const job = slot.job;
      if (job?.id !== reply.id) return;
      if (!reply.ok) {
        settle(slot, { error: new PdfThumbnailError(reply.reason, reply.errorName) });
        pump();
        return;
      }
      // The slot stays taken until its PNG is encoded, so that at most one page's pixels per
      // worker are held at a time. A job ended meanwhile (timeout, close) is not settled again.
      void encodePng(reply)
        .then(
          (thumbnail) => ({ thumbnail }),
          (error: unknown) => ({
            error: new PdfThumbnailError('render_failed', (error as Error | null)?.name ?? 'Error'),
          }),
        )
        .then((outcome) => {
          if (slot.job !== job) return;
          settle(slot, outcome);
          pump();
        });
    });
    const failed = (error?: Error) => {
      if (slot.worker !== worker) return;
      const code = (error as { code?: unknown } | undefined)?.code;
      discardWorker(slot, 'worker_failed', typeof code === 'string' ? code : (error?.name ?? 'WorkerExit'));
    };
    worker.on('error', failed);
    worker.on('exit', () => failed());
  }

  /**
   * Ends the job's worker once the render has used `timeoutMs` of CPU (checked a few times a
   * second), or once `wallTimeoutMs` have passed whatever it used. Without a thread id, the wall
   * clock alone at `timeoutMs`.
   */
  async function watch(slot: Slot, job: NonNullable<Slot['job']>) {
    const worker = slot.worker;
    const started = performance.now();
    const cpuAtStart = await threadCpuMs(slot.threadId);
    const check = async () => {
      if (slot.job !== job || slot.worker !== worker) return;
      const wall = performance.now() - started;
      const cpu = cpuAtStart === undefined ? undefined : await threadCpuMs(slot.threadId);
      if (slot.job !== job || slot.worker !== worker) return;
      const used = cpu === undefined || cpuAtStart === undefined ? wall : cpu - cpuAtStart;
      if (used >= options.timeoutMs || wall >= wallTimeoutMs) return discardWorker(slot, 'timeout');
      job.timer = setTimeout(() => void check(), Math.min(250, Math.max(20, options.timeoutMs - used)));
      job.timer.unref();
    };
    job.timer = setTimeout(() => void check(), Math.min(250, options.timeoutMs));
    job.timer.unref();
  }

  /**
   * Gives the job to the slot's worker with the first chunk of its file, which pdf.js reads first
   * (the header): the file's first read is made here, once a worker is free for it.
   */
  async function dispatch(slot: Slot, waiting: Waiting) {
    const worker = slot.worker!;
    const job: NonNullable<Slot['job']> = { ...waiting, id: nextId++ };
    slot.job = job;
    void watch(slot, job);
    const size = waiting.source.size;
    let head: Uint8Array;
    try {
      head = await waiting.source.read({ start: 0, end: Math.min(chunkBytes, size) - 1 });
    } catch (error) {
      if (slot.job !== job) return;
      settle(slot, { error: new PdfThumbnailError('read_failed', (error as Error | null)?.name ?? 'Error') });
      pump();
      return;
    }
    // The job may have ended (timeout, close) while the bytes were read.
    if (slot.worker !== worker || slot.job !== job) return;
    const message: ThumbnailJob = {
      render: { id: job.id, size, chunkBytes, head, maxSide, maxPixels, maxImagePixels },
    };
    worker.postMessage(message, transferList(head));
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
    render(source) {
      if (closed) return Promise.reject(new PdfThumbnailError('closed'));
      if (slots.length === 0) return Promise.reject(new PdfThumbnailError('disabled'));
      if (source.size > options.maxBytes) return Promise.reject(new PdfThumbnailError('too_large'));
      if (queue.length >= maxQueue) return Promise.reject(new PdfThumbnailError('busy'));
      return new Promise<PdfThumbnail>((resolve, reject) => {
        queue.push({ source, resolve, reject });
        pump();
      });
    },

    hasIdleWorker() {
      return !closed && queue.length === 0 && slots.some((slot) => slot.worker && slot.ready && !slot.job);
    },

    start() {
      if (closed) return;
      for (const slot of slots) if (!slot.worker) spawn(slot);
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
