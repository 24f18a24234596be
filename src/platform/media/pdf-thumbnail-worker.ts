/**
 * Runs inside a render process of the PDF thumbnail pool (pdf-thumbnail-pool.ts), never in the
 * platform's: pdf.js parses and paints synchronously and holds its thread for tens to hundreds of
 * milliseconds a page, and a hostile page can take hundreds of MB outside the JavaScript heap. One
 * job at a time; the pool times jobs out, watches the process's memory, and replaces a stuck or
 * grown process. The process never sees the blob store: it asks the platform for byte ranges of
 * the PDF over its IPC channel.
 */
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
// The legacy build is the one pdf.js supports on Node: the modern build targets current browsers.
import {
  getDocument,
  PDFDataRangeTransport,
  PDFWorker,
  VerbosityLevel,
  type PDFDocumentProxy,
} from 'pdfjs-dist/legacy/build/pdf.mjs';

/** Set in the environment of the pool's render processes. */
export const renderProcessMarker = 'PDF_RENDER_PROCESS';

/**
 * Platform → render process: render page 1 of a PDF of `size` bytes. Its first chunk comes with the job;
 * the worker asks for any other bytes by range.
 */
export interface ThumbnailJob {
  render: {
    id: number;
    size: number;
    /** pdf.js's unit of reading: each range the worker asks for is whole chunks of this size. */
    chunkBytes: number;
    /** The file's first `chunkBytes` bytes (all of it when it is smaller). */
    head: Uint8Array;
    /** The longer side of the PNG, in pixels. */
    maxSide: number;
    /** width × height of the PNG at most (binds before maxSide only for a configured large side). */
    maxPixels: number;
    /** Images inside the page larger than this (width × height) are left out, not decoded. */
    maxImagePixels: number;
    /** Render at the lowest CPU priority (below), so that requests win. */
    lowPriority: boolean;
  };
}

/** Platform → render process: the bytes of a range the worker asked for, or why they could not be read. */
export type RangeAnswer =
  | { data: { id: number; begin: number; bytes: Uint8Array } }
  | { readFailed: { id: number; errorName: string } };

/** Why no thumbnail came out of a PDF that the worker did read. */
export type RenderFailure =
  | 'encrypted'
  | 'invalid_pdf'
  | 'render_failed'
  | 'read_failed'
  /**
   * pdf.js could not read the page's content whole (its parser gave up part-way): what it would draw
   * is a blank or partial page, which is not the page.
   */
  | 'unreadable'
  /**
   * Memory ran out: the process hit its data limit (the pool's `maxRssMb`), or grew past it and was
   * killed. The pool replaces the process either way.
   */
  | 'memory_limit';

/** A drawn page: its PNG and size. */
type RenderReply =
  | { id: number; ok: true; png: Uint8Array; width: number; height: number }
  | { id: number; ok: false; reason: RenderFailure; errorName: string };

export type ThumbnailReply =
  | RenderReply
  /** Bytes `begin` (inclusive) to `end` (exclusive) of job `id`'s PDF, please. */
  | { read: { id: number; begin: number; end: number } }
  /** Sent once after pdf.js has loaded: the pool starts a job's clock only after this. */
  | { ready: true }
  /**
   * An allocation failed during job `id`: the process hit its data limit. Said at once, as native
   * code that meets the same limit next crashes the process before the render can answer.
   */
  | { outOfMemory: { id: number } };

// pdf.js parses in a "worker" of its own; on Node that is a fake one on this same thread, whose
// code it would import at the first document. Loaded now, before this worker says it is ready, so
// that the first upload's time limit is not spent loading code. (Untyped module: imported by name.)
const pdfjsWorkerModule: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = await import(pdfjsWorkerModule);

/**
 * A render competes for the CPU with the event loop that answers API requests; on a machine with
 * few cores that shows in the API's tail latency (S9). Renders can wait, requests should not. The
 * pool's bootstrap gave this thread the lowest nice value, which alone did not help (S9 2.1–3.2 at
 * nice 10 or 19 on 2 cores): the scheduler lets a running thread finish its slice before a woken
 * one runs, so a request waited up to a few milliseconds behind the render. SCHED_IDLE threads give
 * way at once (S9 1.8–2.2, with the same uploads and no thumbnails at 1.2–1.3). Node has no call for
 * a thread's scheduling policy, so util-linux's `chrt` sets it, once per process, at its first job,
 * for its main thread, the one that parses and draws. Not for every thread of the process: with the
 * garbage collector's helpers and libvips's threads idle too, S8′ took 1.6× as long as with threads
 * (npm run bench:against, paired, on a busy machine); with the main thread alone, 1.02×. Not at its
 * start: loading pdf.js at nice 19 already gives way to requests, and at SCHED_IDLE a busy machine
 * could hold a process's start past its time limit. The price:
 * on a saturated machine renders wait; thumbnails are made after the upload's answer, so they only
 * stay pending longer, and the time limit counts CPU time, not waiting. Elsewhere, or without
 * `chrt`, the main thread keeps its nice value. A pool may ask for none of this (lowPriority: false):
 * then renders compete with requests as equals, and a machine kept busy by other work still makes them.
 */
let idle = false;
function renderOnlyWhenIdle(lowPriority: boolean) {
  if (idle || !lowPriority || process.platform !== 'linux') return;
  idle = true;
  try {
    execFileSync('chrt', ['--idle', '--pid', '0', String(process.pid)], {
      stdio: 'ignore',
      timeout: 2000,
    });
  } catch {
    // No chrt: the nice value is all this thread gets.
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

/**
 * The PNG of a drawn page, encoded by libvips (sharp, as renditions are) rather than by the canvas:
 * for a 1024 × 576 slide the canvas's own PNG encoder took 45–75 ms, two thirds of the whole
 * render, where libvips takes about 5 ms and writes a smaller file (98 KB against 126) of the same
 * pixels. RGB without alpha: the page is drawn on opaque white paper. zlib's level 2 rather than
 * sharp's 6: the PNG is the source the previews' renditions are made from, and level 2 encodes a
 * slide in 4.9 ms of CPU against 7.2, for 103 KB against 98 (a scanned page: the same time and size
 * at either level; level 1 made it 40% larger). Here, not in the platform: the 100 KB PNG crosses
 * the IPC channel rather than the 2.4 MB of a slide's pixels (copied by the serializer at each end).
 */
function encodePng(pixels: Buffer, width: number, height: number): Promise<Buffer> {
  return sharp(pixels, { raw: { width, height, channels: 4 } })
    .removeAlpha()
    .png({ compressionLevel: 2 })
    .toBuffer();
}

/** A canvas of pdf.js's factory (@napi-rs/canvas) and its context. */
interface DrawnCanvas {
  canvas: {
    width: number;
    height: number;
    /** The pixels, RGBA: a view of the canvas's own memory, valid until the canvas is destroyed. */
    data(): Buffer;
  };
  context: CanvasRenderingContext2D;
}

/**
 * The IPC channel to the platform; none when this module is imported elsewhere (a test runner's
 * process may have an IPC channel of its own: the pool marks its processes).
 */
const port =
  process.send && process.env[renderProcessMarker] === '1'
    ? {
        postMessage: (message: ThumbnailReply) => process.send!(message),
        on: (listener: (message: ThumbnailJob | RangeAnswer) => void) => process.on('message', listener),
      }
    : undefined;

/**
 * pdf.js reads the PDF through this, a chunk at a time (64 KB), and with auto-fetch off it asks only
 * for what it parses: the header (the first chunk, which comes with the job, so that a file within
 * one chunk takes no round trip between threads), the trailer and cross-reference table at the end,
 * the catalog, the page tree and page 1's objects. A 50 MB deck with a sound cross-reference table
 * costs a few hundred KB of reads, and the worker never holds the file. A damaged table sends pdf.js
 * into its recovery scan, which reads the file through (the pool's size limit still bounds it).
 */
class BlobRangeTransport extends PDFDataRangeTransport {
  /** Set once the platform could not read a range: the render ends with `read_failed`. */
  failed?: string;
  /** Rejects once a range could not be read: pdf.js would otherwise wait for it forever. */
  readonly failure: Promise<never>;
  private rejectFailure: (error: Error) => void = () => {};

  constructor(
    readonly jobId: number,
    size: number,
    head: Uint8Array,
  ) {
    // `progressiveDone` as there is no stream: every byte after the head comes by range.
    super(size, head, true);
    this.failure = new Promise<never>((_resolve, reject) => {
      this.rejectFailure = reject;
    });
    // Nobody may be racing it yet when it rejects.
    this.failure.catch(() => {});
  }

  override requestDataRange(begin: number, end: number) {
    port?.postMessage({ read: { id: this.jobId, begin, end } } satisfies ThumbnailReply);
  }

  fail(errorName: string) {
    this.failed = errorName;
    this.rejectFailure(new Error('a range of the PDF could not be read'));
  }
}

/**
 * pdf.js's own "worker", which parses (on Node a fake one, on this same thread), shared by every
 * document this thread renders: made anew for each document, as getDocument does by default, it
 * cost about a fifth of a render's CPU (a 12-slide deck: 44–51 ms against 56–61 a render). Each
 * document still has its own parser and caches, dropped when its loading task is destroyed.
 */
let pdfWorker: PDFWorker | undefined;
function sharedPdfWorker() {
  if (!pdfWorker || pdfWorker.destroyed) {
    const worker = new PDFWorker({ verbosity: VerbosityLevel.WARNINGS });
    // Its port exists once it is set up. Listened to before any document is opened with it: this
    // reaction to its readiness was registered first, so it runs before getDocument's own.
    void worker.promise.then(
      () => watchOperatorListErrors(worker.port),
      // A worker that fails to set up fails getDocument, which says so.
      () => undefined,
    );
    pdfWorker = worker;
  }
  return pdfWorker;
}

/**
 * Why the page's content was not read whole during the job under way, if it was not. pdf.js draws
 * what it could of a page whose content failed part-way (its `stopAtErrors` is off, which ordinary
 * damage such as a broken embedded font needs), and tells of the failure in one of two ways:
 *
 * - a warning, "getOperatorList - ignoring errors during …", when its parser gave up while it read
 *   the page's operators: the operators read until then are drawn;
 * - nothing at all when the failure came after the page began but before its first operator was
 *   read: the page's operator list then ends in an error, which the main thread drops (the promise
 *   it would reject was kept when the page began), and render() resolves with a blank page.
 *   PT5's hostile PDFs met this one in about one run in three: when inflating the content stream
 *   in one piece failed with a JavaScript error (rather than a crash), pdf.js went back to its own
 *   decoder, which decodes as the parser reads, so the allocation past the data limit failed in
 *   the parser's first read. `stopAtErrors` would not help: it only sends more errors this way.
 *
 * Either way the page drawn is not the page, and it gets no thumbnail: `memory_limit` when an
 * allocation failed, else `unreadable`.
 */
interface ContentFailure {
  reason: 'memory_limit' | 'unreadable';
  /** The name of pdf.js's error (never its message: that may quote the file). */
  errorName: string;
}
let contentFailure: ContentFailure | undefined;
/** A new job: its content has not failed yet. (A function, so that the job reads what others set.) */
function readingNewContent() {
  contentFailure = undefined;
}
/** Told at once of an allocation that failed: the process is at its limit (see the port's use). */
let onOutOfMemory: () => void = () => {};

/** Notes the first failure of the job's content, from pdf.js's words about it. */
function contentFailed(words: string) {
  if (contentFailure) return;
  const reason = isAllocationFailure({ message: words }) ? 'memory_limit' : 'unreadable';
  contentFailure = { reason, errorName: /\b([A-Z]\w*(?:Error|Exception))\b/.exec(words)?.[1] ?? 'Error' };
  if (reason === 'memory_limit') onOutOfMemory();
}

/**
 * pdf.js's warnings go to `console.warn`, and are read here for the failures above and dropped:
 * they can quote the file's bytes, and the pool logs a reason of its own. An allocation that failed
 * anywhere (an image, a font) means the process is at its limit; other warnings are about damage
 * that pdf.js works around (an unknown operator, a font it replaces) and the page is still drawn.
 */
function watchPdfjsWarnings() {
  console.warn = (...parts: unknown[]) => {
    const words = parts.filter((part) => typeof part === 'string').join(' ');
    if (/allocation failed|ignoring errors during/i.test(words)) contentFailed(words);
  };
}

/**
 * The second way above: an error that ends the page's operator list crosses the worker's port (on
 * Node the fake worker's, on this thread) as a stream message, before the main thread drops it.
 * Read there: the request for a page's operators (action "GetOperatorList") opens a stream, and the
 * worker's answers on it carry `stream` 3 when they close it, 5 when they end it in an error.
 */
const streamClosed = 3;
const streamFailed = 5;
interface PortMessage {
  sourceName?: string;
  targetName?: string;
  action?: string;
  streamId?: number;
  stream?: number;
  reason?: { name?: unknown; message?: unknown; details?: unknown };
}
function watchOperatorListErrors(port: Pick<Worker, 'addEventListener'>) {
  /** The streams of the operator lists asked for and not yet ended, by the worker's side and id. */
  const open = new Set<string>();
  port.addEventListener('message', (event: MessageEvent<PortMessage>) => {
    const message = event.data;
    if (message.action === 'GetOperatorList') {
      open.add(`${message.targetName} ${message.streamId}`);
      return;
    }
    if (message.stream !== streamClosed && message.stream !== streamFailed) return;
    if (!open.delete(`${message.sourceName} ${message.streamId}`)) return;
    if (message.stream === streamFailed) {
      const { name, message: text, details } = message.reason ?? {};
      contentFailed([details, name, text].filter((part) => typeof part === 'string').join(' '));
    }
  });
}

/**
 * An allocation refused for want of memory. By its words, not its class: pdf.js passes an error
 * from its parser to the page as an UnknownErrorException that keeps only the message. libvips
 * (the PNG encoder) says "Error creating thread: Resource temporarily unavailable" when a page that
 * took most of the limit leaves no room for its threads' stacks, which count in the data segment.
 */
function isAllocationFailure(error: unknown): boolean {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && /allocation failed|error creating thread/i.test(message);
}

/** The transport of the job under way (one at a time per worker). */
let current: BlobRangeTransport | undefined;

/**
 * Draws page 1 of the job's PDF and answers the pool. The answer goes before the document is
 * destroyed (a millisecond or two of pdf.js freeing its caches), which the thumbnail need not wait for.
 */
async function render(job: ThumbnailJob['render'], reply: (answer: RenderReply) => void) {
  const transport = new BlobRangeTransport(job.id, job.size, job.head);
  current = transport;
  readingNewContent();
  const task = getDocument({
    worker: sharedPdfWorker(),
    range: transport,
    length: job.size,
    rangeChunkSize: job.chunkBytes,
    // Only what is parsed is read: no background fetch of the rest, no stream of the whole file.
    disableAutoFetch: true,
    disableStream: true,
    // PostScript functions are compiled with `new Function` when eval is allowed: never for
    // untrusted files (CVE-2024-4367 was this path).
    isEvalSupported: false,
    enableXfa: false,
    maxImageSize: job.maxImagePixels,
    standardFontDataUrl,
    cMapUrl,
    wasmUrl,
    // Warnings, for the one that says an allocation failed (above); never passed on, as they can
    // quote the file's bytes: the pool logs a reason of its own instead.
    verbosity: VerbosityLevel.WARNINGS,
  });
  // Every wait for pdf.js also ends when a range cannot be read (the file was deleted meanwhile).
  const orFailure = <T>(promise: Promise<T>) => Promise.race([promise, transport.failure]);
  try {
    const doc = await orFailure(task.promise);
    const page = await orFailure(doc.getPage(1));
    const { viewport, width, height } = thumbnailSize(page, job);
    const png = await drawPng(doc, page, viewport, width, height, orFailure);
    page.cleanup();
    // A page drawn without the content that could not be read (or did not fit) is not the page.
    if (contentFailure) throw new Error('the page was not read whole');
    reply({ id: job.id, ok: true, png, width, height });
  } catch (error) {
    reply({ id: job.id, ok: false, ...failureOf(error, transport) });
  } finally {
    current = undefined;
    await task.destroy();
  }
}

type Page = Awaited<ReturnType<PDFDocumentProxy['getPage']>>;
type Viewport = ReturnType<Page['getViewport']>;

/** Page 1's size in the thumbnail: fitted within the job's side and pixel limits, whole pixels. */
function thumbnailSize(page: Page, job: ThumbnailJob['render']) {
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
  return { viewport, width, height };
}

/** The page drawn on white paper and encoded as PNG; the canvas's memory freed at once after. */
async function drawPng(
  doc: PDFDocumentProxy,
  page: Page,
  viewport: Viewport,
  width: number,
  height: number,
  orFailure: <T>(promise: Promise<T>) => Promise<T>,
): Promise<Buffer> {
  // The document's own factory: the canvas pdf.js brings (@napi-rs/canvas), the one it draws on.
  const factory = doc.canvasFactory as {
    create(w: number, h: number): DrawnCanvas;
    destroy(drawn: DrawnCanvas): void;
  };
  const drawn = factory.create(width, height);
  try {
    await orFailure(
      page.render({
        canvas: drawn.canvas as unknown as HTMLCanvasElement,
        canvasContext: drawn.context,
        viewport,
        // A PDF page is opaque paper; without this a transparent page would come out black in viewers.
        background: 'rgb(255, 255, 255)',
      }).promise,
    );
    // Read in place (`data()` is a view of the canvas's memory), before the canvas goes.
    return await encodePng(drawn.canvas.data(), width, height);
  } finally {
    // Its memory (4 bytes a pixel, outside the JavaScript heap) goes now, not whenever the garbage
    // collector gets to the canvas.
    factory.destroy(drawn);
  }
}

/** Why a render failed, as the pool logs it: memory first, then the file's read, then pdf.js's word. */
function failureOf(
  error: unknown,
  transport: BlobRangeTransport,
): { reason: RenderFailure; errorName: string } {
  if (contentFailure?.reason === 'memory_limit' || isAllocationFailure(error))
    return { reason: 'memory_limit', errorName: 'RangeError' };
  if (transport.failed !== undefined) return { reason: 'read_failed', errorName: transport.failed };
  if (contentFailure) return { reason: 'unreadable', errorName: contentFailure.errorName };
  const errorName = (error as { name?: unknown } | null)?.name;
  const name = typeof errorName === 'string' ? errorName : 'Error';
  const reason: RenderFailure =
    name === 'PasswordException'
      ? 'encrypted'
      : name === 'InvalidPDFException'
        ? 'invalid_pdf'
        : 'render_failed';
  return { reason, errorName: name };
}

if (port) {
  onOutOfMemory = () => {
    if (current) port.postMessage({ outOfMemory: { id: current.jobId } });
  };
  watchPdfjsWarnings();
  // The platform gone (killed, crashed): nobody waits for what this process would draw.
  process.on('disconnect', () => process.exit(0));
  let rendering = Promise.resolve();
  port.on((message: ThumbnailJob | RangeAnswer) => {
    if ('render' in message) {
      renderOnlyWhenIdle(message.render.lowPriority);
      // One document at a time: the next job begins once the last one is destroyed. A failure to
      // destroy one is left unhandled: it ends this process, and the pool starts another.
      rendering = rendering.then(() => render(message.render, (reply) => port.postMessage(reply)));
    } else if ('data' in message) {
      const { id, begin, bytes } = message.data;
      // Late answers for a job that already ended are dropped.
      if (current && current.jobId === id && current.failed === undefined) current.onDataRange(begin, bytes);
    } else if (current && current.jobId === message.readFailed.id) {
      current.fail(message.readFailed.errorName);
    }
  });
  port.postMessage({ ready: true });
}
