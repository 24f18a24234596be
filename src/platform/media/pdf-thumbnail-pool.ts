import type { ChildProcess } from 'node:child_process';
import type { BlobRange } from '../storage/blob-store';
import type { RangeAnswer, RenderFailure, ThumbnailReply } from './pdf-thumbnail-worker';
import {
  endProcess,
  processRssMb,
  type RenderLimits,
  sendTo,
  startRenderProcess,
  watchEveryMs,
  watchRender,
} from './render-process';

/** Why a PDF got no thumbnail. */
export type ThumbnailFailure =
  | RenderFailure
  /** Thumbnails are turned off (no workers configured). */
  | 'disabled'
  /** Larger than the configured limit. */
  | 'too_large'
  /** Every worker busy and the queue full. */
  | 'busy'
  /** The render used more CPU time than its limit; its process was ended and replaced. */
  | 'timeout'
  /** The render's process died (its heap full, a crash in native code) or could not start. */
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
  /** Render processes; 0 turns thumbnails off. */
  workers: number;
  /**
   * Time limit of one render, in CPU time of its process where the platform can tell (Linux), else
   * from the moment a ready process receives the job. A render that waits for a CPU is not stuck.
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
   * JavaScript heap of one render process; past it the process dies and the job fails. Default 128
   * MB: page 1 of a 12-slide deck, or a cover with a 12-megapixel photo, renders within 32 MB; the
   * rest is room for large embedded fonts and CMaps. Decoded images and streams are not on this
   * heap: `maxRssMb` bounds them.
   */
  maxHeapMb?: number;
  /**
   * Memory of one render process, all of it (heap, decoded streams and images, canvas,
   * libraries): its data segment is limited to this, so an allocation past it fails, and its
   * resident memory is watched, so a process past it is killed; either way the job fails with
   * `memory_limit`. Default 512 MB. A process at rest takes about 100 MB of it.
   */
  maxRssMb?: number;
  /**
   * Memory of all the render processes together, resident (RSS), in MB. While two renders or more
   * run and the processes' sum passes this, the largest render is ended (`memory_limit`, as past
   * `maxRssMb`) and its process replaced: six hostile PDFs at once take one process's limit, not
   * `workers` × it. A render running alone is bounded by `maxRssMb` only, so one large cover can
   * still use all of it. Default `maxRssMb` + 128: one render at its limit and another at rest
   * (about 100 MB).
   */
  poolMaxRssMb?: number;
  /**
   * A render process that has grown by more than this since it was ready (memory that a render
   * took and the allocator kept) is replaced once its job is done, so that what one hostile PDF
   * took is given back. Default a quarter of `maxRssMb`.
   */
  recycleGrowthMb?: number;
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

/** pdf.js's unit of reading (its default): the first chunk goes with the job, the rest by range. */
const chunkBytes = 64 * 1024;

interface Waiting {
  source: PdfSource;
  resolve: (thumbnail: PdfThumbnail) => void;
  reject: (error: unknown) => void;
}

interface Job extends Waiting {
  id: number;
  /** Watches its process while it renders (render-process.ts). */
  watch?: ReturnType<typeof watchRender>;
}

interface Slot {
  /** The render process; "worker" as the rest of the pool's words say. */
  worker?: ChildProcess;
  ready: boolean;
  /** Its resident memory once ready, in MB: what it grows by in a render is measured from this. */
  readyRssMb?: number;
  startTimer?: NodeJS.Timeout;
  /** The job this slot's process is rendering. */
  job?: Job;
}

/**
 * A small pool of render processes that draw PDF cover thumbnails with pdf.js. Rendering never
 * runs in the platform's process, at most `workers` render at once, a bounded number wait, and a
 * render past its time limit or its memory limit ends its process (a stuck pdf.js cannot be
 * interrupted any other way) and a fresh one takes its place; so does one that a render left
 * larger. Memory is bounded per process, all of it (`maxRssMb`), and across them (`poolMaxRssMb`);
 * within a process the JavaScript heap (`maxHeapMb`), one canvas of at most `maxPixels` and images
 * up to `maxImagePixels`; the platform holds only the 64 KB ranges pdf.js asked for and the PNG.
 */
export function createPdfThumbnailPool(options: PdfThumbnailPoolOptions): PdfThumbnailPool {
  return new RenderProcessPool(options);
}

class RenderProcessPool implements PdfThumbnailPool {
  private readonly maxQueue: number;
  private readonly page: { maxSide: number; maxPixels: number; maxImagePixels: number; lowPriority: boolean };
  private readonly processSettings: { maxHeapMb: number; maxDataMb: number; lowPriority: boolean };
  private readonly limits: RenderLimits;
  private readonly recycleGrowthMb: number;
  private readonly startTimeoutMs: number;
  private readonly poolMaxRssMb: number;
  /** Looks at the processes' memory together while renders run (`watchBudget`). */
  private budgetTimer?: NodeJS.Timeout;
  private readonly slots: Slot[];
  private readonly queue: Waiting[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: PdfThumbnailPoolOptions) {
    const maxRssMb = options.maxRssMb ?? 512;
    const lowPriority = options.lowPriority ?? true;
    this.maxQueue = options.maxQueue ?? 8 * options.workers;
    this.page = {
      maxSide: options.maxSide ?? 1024,
      maxPixels: options.maxPixels ?? 1024 * 1024,
      maxImagePixels: options.maxImagePixels ?? 50_000_000,
      lowPriority,
    };
    this.processSettings = { maxHeapMb: options.maxHeapMb ?? 128, maxDataMb: maxRssMb, lowPriority };
    this.limits = {
      maxRssMb,
      timeoutMs: options.timeoutMs,
      wallTimeoutMs: options.wallTimeoutMs ?? Math.max(120_000, 20 * options.timeoutMs),
    };
    this.recycleGrowthMb = options.recycleGrowthMb ?? maxRssMb / 4;
    this.startTimeoutMs = options.startTimeoutMs ?? 60_000;
    this.poolMaxRssMb = options.poolMaxRssMb ?? maxRssMb + 128;
    this.slots = Array.from({ length: options.workers }, () => ({ ready: false }));
  }

  render(source: PdfSource): Promise<PdfThumbnail> {
    if (this.closed) return Promise.reject(new PdfThumbnailError('closed'));
    if (this.slots.length === 0) return Promise.reject(new PdfThumbnailError('disabled'));
    if (source.size > this.options.maxBytes) return Promise.reject(new PdfThumbnailError('too_large'));
    if (this.queue.length >= this.maxQueue) return Promise.reject(new PdfThumbnailError('busy'));
    return new Promise<PdfThumbnail>((resolve, reject) => {
      this.queue.push({ source, resolve, reject });
      this.pump();
    });
  }

  hasIdleWorker() {
    return (
      !this.closed &&
      this.queue.length === 0 &&
      this.slots.some((slot) => slot.worker && slot.ready && !slot.job)
    );
  }

  start() {
    if (this.closed) return;
    for (const slot of this.slots) if (!slot.worker) this.spawn(slot);
  }

  async close() {
    this.closed = true;
    clearTimeout(this.budgetTimer);
    for (const waiting of this.queue.splice(0)) waiting.reject(new PdfThumbnailError('closed'));
    await Promise.all(
      this.slots.map(async (slot) => {
        const worker = slot.worker;
        slot.worker = undefined;
        clearTimeout(slot.startTimer);
        this.settle(slot, { error: new PdfThumbnailError('closed') });
        if (worker) await endProcess(worker);
      }),
    );
  }

  /** Hands waiting jobs to ready processes, and starts only as many processes as jobs are left to serve. */
  private pump() {
    if (this.closed) return;
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (slot.worker && slot.ready && !slot.job) void this.dispatch(slot, this.queue.shift()!);
    }
    let starting = this.slots.filter((slot) => slot.worker && !slot.ready).length;
    for (const slot of this.slots) {
      if (this.queue.length <= starting) return;
      if (!slot.worker) {
        this.spawn(slot);
        starting++;
      }
    }
  }

  /**
   * Gives the job to the slot's process with the first chunk of its file, which pdf.js reads first
   * (the header): the file's first read is made here, once a process is free for it.
   */
  private async dispatch(slot: Slot, waiting: Waiting) {
    const worker = slot.worker!;
    const job: Job = { ...waiting, id: this.nextId++ };
    slot.job = job;
    job.watch = watchRender(worker.pid, this.limits, (failure) => {
      if (slot.job === job && slot.worker === worker) this.discardWorker(slot, failure);
    });
    this.watchBudget();
    const size = waiting.source.size;
    let head: Uint8Array;
    try {
      head = await waiting.source.read({ start: 0, end: Math.min(chunkBytes, size) - 1 });
    } catch (error) {
      if (slot.job !== job) return;
      const errorName = (error as Error | null)?.name ?? 'Error';
      this.settle(slot, { error: new PdfThumbnailError('read_failed', errorName) });
      this.pump();
      return;
    }
    // The job may have ended (timeout, close) while the bytes were read.
    if (slot.worker !== worker || slot.job !== job) return;
    sendTo(worker, { render: { id: job.id, size, chunkBytes, head, ...this.page } });
  }

  /**
   * Looks at the render processes' memory together every 20 ms (as each process's own watch does:
   * a decoding buffer can double between two looks) while any render runs, and stops when none does.
   */
  private watchBudget() {
    if (this.budgetTimer || this.closed) return;
    this.budgetTimer = setTimeout(() => {
      this.budgetTimer = undefined;
      if (this.closed || !this.slots.some((slot) => slot.job)) return;
      this.enforceBudget();
      this.watchBudget();
    }, watchEveryMs).unref();
  }

  /**
   * Ends the largest of two renders or more once the render processes together (busy, idle and
   * starting: all hold memory) pass `poolMaxRssMb`. Resident memory (VmRSS), not proportional
   * (Pss): it is read in O(1) where smaps_rollup walks every page of a process 50 times a second,
   * it is what `maxRssMb` and an operator's `ps` count, and what it counts twice (the pages of
   * Node's code that the processes share) only makes the budget stricter.
   */
  private enforceBudget() {
    const rendering = (slot: Slot) => slot.worker !== undefined && slot.job !== undefined;
    if (this.slots.filter(rendering).length < 2) return;
    const sized = this.slots.map((slot) => ({ slot, rssMb: processRssMb(slot.worker?.pid) ?? 0 }));
    const total = sized.reduce((sum, { rssMb }) => sum + rssMb, 0);
    if (total <= this.poolMaxRssMb) return;
    const largest = sized.filter(({ slot }) => rendering(slot)).reduce((a, b) => (b.rssMb > a.rssMb ? b : a));
    this.discardWorker(largest.slot, 'memory_limit', 'PoolMemoryBudget');
  }

  private spawn(slot: Slot) {
    const worker = startRenderProcess(this.processSettings);
    slot.worker = worker;
    slot.ready = false;
    slot.readyRssMb = undefined;
    // Idle processes must not keep a platform alive that is otherwise done.
    worker.unref();
    worker.channel?.unref();
    slot.startTimer = setTimeout(() => {
      if (slot.worker === worker) this.discardWorker(slot, 'worker_failed', 'StartTimeout');
    }, this.startTimeoutMs);
    slot.startTimer.unref();
    worker.on('message', (reply: ThumbnailReply) => {
      if (slot.worker === worker) this.hear(slot, worker, reply);
    });
    worker.on('error', (error) => {
      if (slot.worker !== worker) return;
      const code = (error as { code?: unknown }).code;
      this.discardWorker(slot, 'worker_failed', typeof code === 'string' ? code : error.name);
    });
    worker.on('exit', (_code, signal) => {
      if (slot.worker !== worker) return;
      // Native code (the canvas, libvips) does not survive an allocation refused by the data limit:
      // the process crashes (SIGSEGV, or SIGABRT on std::bad_alloc). A crash in a render that had
      // already taken half the limit is that limit; any other exit is a failed worker.
      const peak = slot.job?.watch?.peakRssMb();
      if (signal !== null && peak !== undefined && peak >= this.limits.maxRssMb / 2)
        return this.discardWorker(slot, 'memory_limit', signal);
      this.discardWorker(slot, 'worker_failed', 'WorkerExit');
    });
  }

  /** What the slot's process says: ready, a range wanted, out of memory, or its job's outcome. */
  private hear(slot: Slot, worker: ChildProcess, reply: ThumbnailReply) {
    if ('ready' in reply) {
      slot.ready = true;
      slot.readyRssMb = processRssMb(worker.pid);
      clearTimeout(slot.startTimer);
      this.pump();
      return;
    }
    if ('outOfMemory' in reply) {
      if (slot.job?.id === reply.outOfMemory.id) this.discardWorker(slot, 'memory_limit', 'RangeError');
      return;
    }
    if ('read' in reply) {
      void this.answerRead(slot, worker, reply.read);
      return;
    }
    if (slot.job?.id !== reply.id) return;
    if (!reply.ok && reply.reason === 'memory_limit') {
      // It ran into its data limit: replaced, as a process past its limit is, rather than trusted
      // with the next file in whatever state the failed allocation left it.
      this.discardWorker(slot, 'memory_limit', reply.errorName);
      return;
    }
    if (!reply.ok) {
      this.settle(slot, { error: new PdfThumbnailError(reply.reason, reply.errorName) });
    } else {
      const { png, width, height } = reply;
      const thumbnail = { png: Buffer.from(png.buffer, png.byteOffset, png.byteLength), width, height };
      this.settle(slot, { thumbnail });
    }
    // The job is done: the slot takes the next one, or a fresh process first.
    this.recycleIfGrown(slot);
    this.pump();
  }

  /** Answers a render process's request for bytes of its job's PDF. */
  private async answerRead(
    slot: Slot,
    worker: ChildProcess,
    request: { id: number; begin: number; end: number },
  ) {
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
    sendTo(worker, answer);
  }

  private settle(slot: Slot, outcome: { thumbnail: PdfThumbnail } | { error: unknown }) {
    const job = slot.job;
    if (!job) return;
    slot.job = undefined;
    job.watch?.stop();
    if ('thumbnail' in outcome) job.resolve(outcome.thumbnail);
    else job.reject(outcome.error);
  }

  /** Ends a slot's process (stuck, too large, crashed or never ready) and fails the job it had. */
  private discardWorker(slot: Slot, failure: ThumbnailFailure, errorName?: string) {
    const worker = slot.worker;
    const wasReady = slot.ready;
    slot.worker = undefined;
    slot.ready = false;
    clearTimeout(slot.startTimer);
    if (worker) void endProcess(worker);
    this.settle(slot, { error: new PdfThumbnailError(failure, errorName) });
    if (this.closed) return;
    if (wasReady) {
      // Replaced at once, so the next PDF does not wait for pdf.js to load.
      this.spawn(slot);
    } else {
      // A process that cannot start would make the queue wait forever: the first job in line fails
      // instead, so each job costs at most one start attempt and a broken install cannot loop.
      this.queue.shift()?.reject(new PdfThumbnailError('worker_failed', errorName));
    }
    this.pump();
  }

  /**
   * After a job: a process that the render left larger by more than `recycleGrowthMb` (a decoded
   * stream or image the allocator kept) is replaced, so that it gives that memory back now rather
   * than hold it until the next hostile file.
   */
  private recycleIfGrown(slot: Slot) {
    const rss = processRssMb(slot.worker?.pid);
    if (rss === undefined || slot.readyRssMb === undefined || rss - slot.readyRssMb <= this.recycleGrowthMb)
      return;
    const worker = slot.worker!;
    slot.worker = undefined;
    slot.ready = false;
    void endProcess(worker);
    if (!this.closed) this.spawn(slot);
  }
}
