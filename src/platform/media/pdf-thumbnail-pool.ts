import { type ChildProcess, spawn as spawnProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { BlobRange } from '../storage/blob-store';
import type { RangeAnswer, RenderFailure, ThumbnailJob, ThumbnailReply } from './pdf-thumbnail-worker';

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

/**
 * The first thing a render process runs, before it loads anything (plain CommonJS: no loader yet):
 * the lowest nice value for its main thread, the one that loads pdf.js and renders. Render
 * processes start with the platform, and loading pdf.js (about half a second of CPU each) at normal
 * priority held up the platform's first requests on a busy machine. Renders go lower still
 * (SCHED_IDLE, every thread of the process) at the first job: pdf-thumbnail-worker.ts says why.
 */
const lowerPriority = `try { require('node:os').setPriority(19); } catch {}`;

/**
 * Renders run in child processes, not worker threads: a thread's resource limits bound only its
 * JavaScript heap, and pdf.js keeps a decoded stream in an ArrayBuffer outside it. A 600 KB PDF
 * whose page inflates to 300 MB took 330 MB of the platform's memory per render, and the allocator
 * kept most of it. A process's whole memory can be watched (`maxRssMb`), it can be killed at any
 * moment without harm to the platform, and when it ends, all it took goes back to the system.
 *
 * The process runs from TypeScript source like the rest of the platform. It starts from a few
 * lines of plain JavaScript that lower its priority, load pdf.js, register tsx's ESM loader through
 * its API and then import the real entry: the same lines work under tsx (npm start, `node --import
 * tsx`) and under Vitest, which has no Node loader at all. pdf.js (3 MB of plain JavaScript) is
 * imported before the loader is registered: through tsx it was transformed again at every start
 * (8–12 s of a start on a busy machine, against about 1 s), and once loaded the entry's imports of
 * it are served from the module cache. Compiled to `.js`, the entry is imported directly.
 *
 * V8 flags of its own: the heap limit, and `--heap-growing-percent=100`, which lets the heap grow
 * to twice what it keeps live before its next full collection. Below 2 GB of heap V8 lets it grow
 * by only 1.3×, and pdf.js's garbage of each document brought a full collection every other render
 * (docs/benchmarks.md, "PDF thumbnails"). The IPC channel uses V8's serialization, so that byte
 * ranges and pixels pass as bytes, not as JSON arrays of numbers.
 */
function startRenderProcess(settings: {
  maxHeapMb: number;
  maxDataMb: number;
  lowPriority: boolean;
}): ChildProcess {
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
      `.then((tsx) => { tsx.register(); return ${load(new URL('./pdf-thumbnail-worker.ts', here).href)}; })`;
  } else {
    entry = load(new URL('./pdf-thumbnail-worker.js', here).href);
  }
  // A failure to load ends the process (and the pool hears of it), rather than leaving it idle.
  const code = `${settings.lowPriority ? lowerPriority : ''}\n${entry}.catch((error) => { console.error(error); process.exit(70); });`;
  const flags = [`--max-old-space-size=${settings.maxHeapMb}`, '--heap-growing-percent=100'];
  const [command, args] = withDataLimit(settings.maxDataMb, process.execPath, [...flags, '-e', code]);
  return spawnProcess(command, args, {
    // Its stdout would mix with the platform's log lines; its stderr says why it crashed, if it does.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
    // pdf-thumbnail-worker.ts's renderProcessMarker (a type-only import here: the module loads pdf.js).
    env: { ...process.env, PDF_RENDER_PROCESS: '1' },
  });
}

/**
 * The command that runs `command` with its data segment bounded to `maxDataMb` (RLIMIT_DATA: on
 * Linux every private writable mapping, so the ArrayBuffers pdf.js decodes streams into, the
 * canvas and libvips's buffers as well as the JavaScript heap). An allocation past it fails at
 * once, where watching the resident memory sees it only after the fact: pdf.js doubles a decoding
 * stream's buffer in one allocation (256 MB to 512 for a 300 MB stream), so a process watched every
 * 20 ms still passed its limit by that much, and two at once took the platform past 1 GB. A shell
 * sets the limit and replaces itself with the command (the IPC channel and environment pass
 * through `exec`); where there is no /bin/sh (not Linux), the watch alone bounds the process.
 */
function withDataLimit(maxDataMb: number, command: string, args: string[]): [string, string[]] {
  if (process.platform !== 'linux' || !existsSync('/bin/sh')) return [command, args];
  const script = `ulimit -d ${Math.round(maxDataMb * 1024)} && exec "$0" "$@"`;
  return ['/bin/sh', ['-c', script, command, ...args]];
}

/** pdf.js's unit of reading (its default): the first chunk goes with the job, the rest by range. */
const chunkBytes = 64 * 1024;

/** A file of /proc/<pid>/, read at once (the pool's watch reads them many times a second); undefined where there is none. */
function procFile(pid: number | undefined, file: 'stat' | 'status'): string | undefined {
  if (pid === undefined) return undefined;
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, every thread) a process has used, in ms; undefined where unknown. */
function processCpuMs(pid: number | undefined): number | undefined {
  const stat = procFile(pid, 'stat');
  if (stat === undefined) return undefined;
  // Fields after the command (in parentheses, which may hold spaces): utime and stime are the
  // 14th and 15th, in clock ticks (100 a second on Linux).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * 10 : undefined;
}

/** Resident memory of a process in MB; undefined where unknown. */
function processRssMb(pid: number | undefined): number | undefined {
  const kb = /VmRSS:\s+(\d+) kB/.exec(procFile(pid, 'status') ?? '');
  return kb ? Number(kb[1]) / 1024 : undefined;
}

interface Waiting {
  source: PdfSource;
  resolve: (thumbnail: PdfThumbnail) => void;
  reject: (error: unknown) => void;
}

interface Slot {
  /** The render process; "worker" as the rest of the pool's words say. */
  worker?: ChildProcess;
  ready: boolean;
  /** Its resident memory once ready, in MB: what it grows by in a render is measured from this. */
  readyRssMb?: number;
  startTimer?: NodeJS.Timeout;
  /** The job this slot's process is rendering. */
  job?: Waiting & { id: number; timer?: NodeJS.Timeout; peakRssMb?: number };
}

/** Sends to a render process; a process that has gone meanwhile is the exit handler's to deal with. */
function send(worker: ChildProcess, message: ThumbnailJob | RangeAnswer) {
  if (worker.connected) worker.send(message, (error) => void error);
}

/**
 * A small pool of render processes that draw PDF cover thumbnails with pdf.js. Rendering never
 * runs in the platform's process, at most `workers` render at once, a bounded number wait, and a
 * render past its time limit or its memory limit ends its process (a stuck pdf.js cannot be
 * interrupted any other way) and a fresh one takes its place; so does one that a render left
 * larger. Memory is bounded per process, all of it (`maxRssMb`), and within it the JavaScript heap
 * (`maxHeapMb`), one canvas of at most `maxPixels` and images up to `maxImagePixels`; the platform
 * holds only the 64 KB ranges pdf.js asked for and the PNG.
 */
export function createPdfThumbnailPool(options: PdfThumbnailPoolOptions): PdfThumbnailPool {
  const maxQueue = options.maxQueue ?? 8 * options.workers;
  const maxSide = options.maxSide ?? 1024;
  const maxPixels = options.maxPixels ?? 1024 * 1024;
  const maxImagePixels = options.maxImagePixels ?? 50_000_000;
  const lowPriority = options.lowPriority ?? true;
  const maxRssMb = options.maxRssMb ?? 512;
  const processSettings = { maxHeapMb: options.maxHeapMb ?? 128, maxDataMb: maxRssMb, lowPriority };
  const recycleGrowthMb = options.recycleGrowthMb ?? maxRssMb / 4;
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

  /** Kills a render process and answers once it is gone (at once if it already is). */
  function end(worker: ChildProcess): Promise<void> {
    if (worker.exitCode !== null || worker.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.kill('SIGKILL');
    return exited;
  }

  /** Ends a slot's process (stuck, too large, crashed or never ready) and fails the job it had. */
  function discardWorker(slot: Slot, failure: ThumbnailFailure, errorName?: string) {
    const worker = slot.worker;
    const wasReady = slot.ready;
    slot.worker = undefined;
    slot.ready = false;
    clearTimeout(slot.startTimer);
    if (worker) void end(worker);
    settle(slot, { error: new PdfThumbnailError(failure, errorName) });
    if (closed) return;
    if (wasReady) {
      // Replaced at once, so the next PDF does not wait for pdf.js to load.
      spawn(slot);
    } else {
      // A process that cannot start would make the queue wait forever: the first job in line fails
      // instead, so each job costs at most one start attempt and a broken install cannot loop.
      queue.shift()?.reject(new PdfThumbnailError('worker_failed', errorName));
    }
    pump();
  }

  /**
   * After a job: a process that the render left larger by more than `recycleGrowthMb` (a decoded
   * stream or image the allocator kept) is replaced, so that it gives that memory back now rather
   * than hold it until the next hostile file. Answers whether it was.
   */
  function recycleIfGrown(slot: Slot): boolean {
    const rss = processRssMb(slot.worker?.pid);
    if (rss === undefined || slot.readyRssMb === undefined || rss - slot.readyRssMb <= recycleGrowthMb)
      return false;
    const worker = slot.worker!;
    slot.worker = undefined;
    slot.ready = false;
    void end(worker);
    if (!closed) spawn(slot);
    return true;
  }

  /** The job is done (settled): the slot takes the next one, or a fresh process first. */
  function jobDone(slot: Slot) {
    recycleIfGrown(slot);
    pump();
  }

  /** Answers a render process's request for bytes of its job's PDF. */
  async function answerRead(
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
    send(worker, answer);
  }

  function spawn(slot: Slot) {
    const worker = startRenderProcess(processSettings);
    slot.worker = worker;
    slot.ready = false;
    slot.readyRssMb = undefined;
    // Idle processes must not keep a platform alive that is otherwise done.
    worker.unref();
    worker.channel?.unref();
    slot.startTimer = setTimeout(() => {
      if (slot.worker === worker) discardWorker(slot, 'worker_failed', 'StartTimeout');
    }, startTimeoutMs);
    slot.startTimer.unref();
    worker.on('message', (reply: ThumbnailReply) => {
      if (slot.worker !== worker) return;
      if ('ready' in reply) {
        slot.ready = true;
        slot.readyRssMb = processRssMb(worker.pid);
        clearTimeout(slot.startTimer);
        pump();
        return;
      }
      if ('outOfMemory' in reply) {
        if (slot.job?.id === reply.outOfMemory.id) discardWorker(slot, 'memory_limit', 'RangeError');
        return;
      }
      if ('read' in reply) {
        void answerRead(slot, worker, reply.read);
        return;
      }
      const job = slot.job;
      if (job?.id !== reply.id) return;
      if (!reply.ok && reply.reason === 'memory_limit') {
        // It ran into its data limit: replaced, as a process past its limit is, rather than trusted
        // with the next file in whatever state the failed allocation left it.
        discardWorker(slot, 'memory_limit', reply.errorName);
        return;
      }
      if (!reply.ok) {
        settle(slot, { error: new PdfThumbnailError(reply.reason, reply.errorName) });
        jobDone(slot);
        return;
      }
      const { png, width, height } = reply;
      settle(slot, {
        thumbnail: { png: Buffer.from(png.buffer, png.byteOffset, png.byteLength), width, height },
      });
      jobDone(slot);
    });
    const failed = (error?: Error) => {
      if (slot.worker !== worker) return;
      const code = (error as { code?: unknown } | undefined)?.code;
      discardWorker(slot, 'worker_failed', typeof code === 'string' ? code : (error?.name ?? 'WorkerExit'));
    };
    worker.on('error', failed);
    worker.on('exit', (_code, signal) => {
      if (slot.worker !== worker) return;
      // Native code (the canvas, libvips) does not survive an allocation refused by the data limit:
      // the process crashes (SIGSEGV, or SIGABRT on std::bad_alloc). A crash in a render that had
      // already taken half the limit is that limit; any other exit is a failed worker.
      const peak = slot.job?.peakRssMb;
      if (signal !== null && peak !== undefined && peak >= maxRssMb / 2)
        return discardWorker(slot, 'memory_limit', signal);
      failed();
    });
  }

  /** Milliseconds between two looks at a render process: its memory can grow by a few hundred MB a second. */
  const watchEveryMs = 20;

  /**
   * Ends the job's process once it is past `maxRssMb` of memory, once the render has used
   * `timeoutMs` of CPU, or once `wallTimeoutMs` have passed whatever it used; looked at every
   * `watchEveryMs` (a read of two files of /proc, some 30 µs). Without /proc, the wall clock alone
   * at `timeoutMs`.
   */
  function watch(slot: Slot, job: NonNullable<Slot['job']>) {
    const worker = slot.worker;
    const pid = worker?.pid;
    const started = performance.now();
    const cpuAtStart = processCpuMs(pid);
    const check = () => {
      if (slot.job !== job || slot.worker !== worker) return;
      const rss = processRssMb(pid);
      if (rss !== undefined) job.peakRssMb = Math.max(job.peakRssMb ?? 0, rss);
      if (rss !== undefined && rss > maxRssMb) return discardWorker(slot, 'memory_limit');
      const wall = performance.now() - started;
      const cpu = cpuAtStart === undefined ? undefined : processCpuMs(pid);
      const used = cpu === undefined || cpuAtStart === undefined ? wall : cpu - cpuAtStart;
      if (used >= options.timeoutMs || wall >= wallTimeoutMs) return discardWorker(slot, 'timeout');
      job.timer = setTimeout(check, watchEveryMs);
      job.timer.unref();
    };
    job.timer = setTimeout(check, watchEveryMs);
    job.timer.unref();
  }

  /**
   * Gives the job to the slot's process with the first chunk of its file, which pdf.js reads first
   * (the header): the file's first read is made here, once a process is free for it.
   */
  async function dispatch(slot: Slot, waiting: Waiting) {
    const worker = slot.worker!;
    const job: NonNullable<Slot['job']> = { ...waiting, id: nextId++ };
    slot.job = job;
    watch(slot, job);
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
    send(worker, {
      render: { id: job.id, size, chunkBytes, head, maxSide, maxPixels, maxImagePixels, lowPriority },
    });
  }

  function pump() {
    if (closed) return;
    for (const slot of slots) {
      if (queue.length === 0) return;
      if (slot.worker && slot.ready && !slot.job) void dispatch(slot, queue.shift()!);
    }
    // Only as many new processes as there are jobs left to serve.
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
          if (worker) await end(worker);
        }),
      );
    },
  };
}
