import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { DB } from '../db/database';
import type { RunningClaims } from '../shared-state/running-claims';
import type { BlobStore, StagedBlob } from '../storage/blob-store';
import {
  completeThumbnail,
  countRenderAttempt,
  dropPendingThumbnail,
  pendingThumbnailIds,
  pendingThumbnailJob,
} from '../db/repositories/assets';
import { type PdfThumbnail, PdfThumbnailError, type PdfThumbnailPool } from './pdf-thumbnail-pool';
import { blobPdfSource } from './pdf-thumbnails';

/**
 * PDF thumbnails made after the upload's answer. The upload reserves the thumbnail's row, pending,
 * in its own transaction and hands its id here once committed; the PNG is rendered in the worker
 * pool, committed under the reserved key, and the row completed. When a worker is free, the render
 * begins as soon as the PDF is stored, while the upload commits its rows and answers (`begin`); its
 * PNG is still stored only once the row exists. A PDF that cannot be thumbnailed loses its pending
 * row (the parent then has no `thumbnail_id`; the log says why); a parent deleted meanwhile takes
 * the row with it, and a PNG made too late is removed. Pending rows are the queue's durable copy:
 * whatever a stop or crash interrupts is made again after the next start.
 *
 * Several instances share the pending rows (deploy/): each thumbnail queued or being made holds a
 * running claim (shared-state/running-claims.ts; leased in Redis), and an instance takes up only
 * pending thumbnails that no instance holds — at its start and then every `rescanMs`, so that the
 * work of an instance that died is finished by another once its lease has run out.
 */
export interface PendingThumbnails {
  /**
   * Begins drawing the thumbnail of an upload's stored PDF before its rows are committed, when a
   * worker is free for it now and no thumbnail waits; undefined otherwise. The upload hands the
   * render to `make` once its rows are committed (and counts it in the thumbnail's row, as begun),
   * or abandons it when they are not.
   */
  begin(pdf: { key: string; size: number }): BegunRender | undefined;
  /**
   * Makes the pending thumbnail `id`: from the render `begun` for it, if any, else after those
   * already waiting.
   */
  make(id: number, begun?: BegunRender): void;
  /**
   * At start, and then every `rescanMs`: queues every pending thumbnail that no instance is making
   * (left by a stop, a crash, or an instance that died); answers how many.
   */
  resume(): Promise<number>;
  /** Seconds a client should wait before asking again for the pending thumbnail `id`. */
  retryAfterSeconds(id: number): number;
  /** Thumbnails of this process waiting for a render slot, and being made (the metrics). */
  depth(): { waiting: number; running: number };
  /**
   * Stops taking work, ends the renders under way (their thumbnails stay pending, and are made after
   * the next start), closes the worker pool and waits for the jobs to wind up.
   */
  close(): Promise<void>;
}

/** A render begun by `begin`, which holds a render slot until `make` takes it over or it is abandoned. */
export interface BegunRender {
  abandon(): void;
}

export interface PendingThumbnailOptions {
  /** Renders handed to the pool at once; more wait here, holding nothing but their id. */
  concurrency: number;
  /**
   * Renders begun for one thumbnail, across restarts, before it is given up (a PDF that crashes the
   * process must not do so at every start). Default 3.
   */
  maxAttempts?: number;
  /**
   * How often pending thumbnails that nobody makes are looked for again. Default 10 s: a look is one
   * read of the pending rows' index and one Redis call, and a thumbnail left by an instance that
   * died then waits its lease (30 s) and at most this long.
   */
  rescanMs?: number;
  /**
   * Tests hold thumbnails pending here: awaited before each render (for a render begun with its
   * upload, before its result is taken), and before its PNG is stored.
   */
  hooks?: ThumbnailHooks;
  /** Told how each thumbnail ended: `made`, the reason it has none, or `failed` (it stays pending). */
  onOutcome?: (outcome: string) => void;
}

export interface ThumbnailHooks {
  beforeRender?: (thumbnailId: number) => Promise<void>;
  beforeStore?: (thumbnailId: number) => Promise<void>;
}

interface Deps {
  db: DB;
  blobs: BlobStore;
  pdfThumbnails: PdfThumbnailPool;
  clock: () => number;
  runningClaims: RunningClaims;
}

const thumbnailClaim = (id: number) => `thumbnail:${id}`;

export function createPendingThumbnails(
  deps: Deps,
  log: FastifyBaseLogger,
  options: PendingThumbnailOptions,
): PendingThumbnails {
  return new PendingThumbnailQueue(deps, log, options);
}

/** A render in the pool; when it was handed over and how many bytes it has read (for the debug log). */
interface Render {
  result: Promise<PdfThumbnail>;
  started: number;
  bytesRead(): number;
}

/** A pending thumbnail's row, as making it needs it (pendingThumbnailJob). */
type Job = NonNullable<Awaited<ReturnType<typeof pendingThumbnailJob>>>;

class PendingThumbnailQueue implements PendingThumbnails {
  private readonly maxAttempts: number;
  private readonly concurrency: number;
  /** Thumbnail ids waiting for a render slot, first queued first. */
  private readonly waiting: number[] = [];
  /** The thumbnails being made here, each in a slot of its own. */
  private readonly running = new Map<number, Promise<void>>();
  /** Renders begun before their thumbnail's row was committed, each holding a slot. */
  private readonly begun = new Map<BegunRender, Render>();
  /** The claims of the thumbnails queued or being made here, to release when they leave. */
  private readonly claims = new Map<number, () => void>();
  /** The last job's row read (readJobInQueueOrder). */
  private lastRead: Promise<unknown> = Promise.resolve();
  private rescan: NodeJS.Timeout | undefined;
  private closed = false;
  /** Settles at close, giving up a test's hold. */
  private readonly closing: Promise<void>;
  private markClosed: () => void = () => {};

  constructor(
    private readonly deps: Deps,
    private readonly log: FastifyBaseLogger,
    private readonly options: PendingThumbnailOptions,
  ) {
    this.maxAttempts = options.maxAttempts ?? 3;
    this.concurrency = Math.max(1, options.concurrency);
    this.closing = new Promise<void>((resolve) => {
      this.markClosed = resolve;
    });
  }

  begin(pdf: { key: string; size: number }): BegunRender | undefined {
    const free = this.waiting.length === 0 && this.slotsTaken() < this.concurrency;
    if (this.closed || !free || !this.deps.pdfThumbnails.hasIdleWorker()) return undefined;
    const drawing = this.render(pdf);
    const handle: BegunRender = { abandon: () => this.abandon(handle, drawing, pdf.size) };
    this.begun.set(handle, drawing);
    return handle;
  }

  make(id: number, handle?: BegunRender) {
    const begunRender = handle && this.begun.get(handle);
    if (handle) this.begun.delete(handle);
    if (this.closed || this.claims.has(id)) return;
    this.claim(id);
    // The slot of a begun render passes to its thumbnail.
    if (begunRender) return this.run(id, begunRender);
    this.waiting.push(id);
    this.pump();
  }

  async resume() {
    this.rescan ??= setInterval(() => {
      this.takeUpPending().catch((error: unknown) =>
        this.log.error({ err: error }, 'looking for pending PDF thumbnails failed; tried again later'),
      );
    }, this.options.rescanMs ?? 10_000).unref();
    return this.takeUpPending();
  }

  retryAfterSeconds(id: number) {
    // Renders take about a second of a worker each (more on a busy machine): one second per
    // round of renders ahead of this one.
    const ahead = this.waiting.indexOf(id);
    if (ahead === -1) return 1;
    return Math.min(60, 1 + Math.ceil((ahead + 1) / this.concurrency));
  }

  depth() {
    return { waiting: this.waiting.length, running: this.slotsTaken() };
  }

  async close() {
    this.closed = true;
    clearInterval(this.rescan);
    this.markClosed();
    // What waits here is left to the other instances (or this one's next start).
    for (const id of this.waiting.splice(0)) this.release(id);
    await this.deps.pdfThumbnails.close();
    await Promise.allSettled([...this.running.values()]);
  }

  /** Render slots held: by thumbnails being made, and by renders begun with their uploads. */
  private slotsTaken() {
    return this.running.size + this.begun.size;
  }

  /** A begun render whose upload was not kept: what it draws is dropped (its worker finishes it). */
  private abandon(handle: BegunRender, drawing: Render, size: number) {
    if (!this.begun.delete(handle)) return;
    void drawing.result
      .catch(() => undefined)
      .then(() => this.log.debug({ size }, 'PDF thumbnail render dropped: its upload was not kept'));
    // Its slot is free for the thumbnails waiting.
    this.pump();
  }

  private pump() {
    while (!this.closed && this.slotsTaken() < this.concurrency && this.waiting.length > 0)
      this.run(this.waiting.shift()!);
  }

  /**
   * Makes the thumbnail in a slot of its own, taken now. It begins once the caller's answer is on its
   * way: an upload's 201 does not wait for its thumbnail's first database reads and writes (on SQLite
   * they hold the event loop, a commit an fsync).
   */
  private run(id: number, begunRender?: Render) {
    const job = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.makeOne(id, begunRender))
      .catch((error: unknown) => {
        // A database or disk failure: the row stays pending and is tried again at the next rescan
        // or start (render_attempts bounds how often).
        this.options.onOutcome?.('failed');
        this.log.error({ err: error, thumbnailId: id }, 'PDF thumbnail failed; it stays pending');
      })
      .finally(() => {
        this.running.delete(id);
        this.release(id);
        this.pump();
      });
    this.running.set(id, job);
  }

  /** Marks the thumbnail as being made here, for the other instances' rescans. */
  private claim(id: number) {
    const held = Promise.resolve(this.deps.runningClaims.hold(thumbnailClaim(id)));
    this.claims.set(id, () => void held.then((c) => c.release()));
  }

  private release(id: number) {
    this.claims.get(id)?.();
    this.claims.delete(id);
  }

  private async takeUpPending() {
    const pending = await pendingThumbnailIds(this.deps.db);
    const elsewhere = await this.deps.runningClaims.running(pending.map(thumbnailClaim));
    const ids = pending.filter((id) => !elsewhere.has(thumbnailClaim(id)) && !this.claims.has(id));
    for (const id of ids) this.make(id);
    if (ids.length > 0) this.log.info({ count: ids.length }, 'making PDF thumbnails left pending');
    return ids.length;
  }

  /** Draws the thumbnail `id` (or takes the render begun for it), stores its PNG and completes its row. */
  private async makeOne(id: number, begunRender?: Render) {
    const job = await this.readJobInQueueOrder(id);
    // Made already, or its parent was deleted (the row with it).
    if (!job) return;
    await this.hook('beforeRender', id);
    if (this.closed) return;

    // A render begun with the upload was counted in its row; one begun here is counted at its first read.
    const attempt = this.attemptCounter(id);
    const drawing = begunRender ?? this.render({ key: job.parent_key, size: job.parent_size }, attempt.count);
    let rendered: PdfThumbnail;
    try {
      rendered = await drawing.result;
    } catch (error) {
      return this.renderFailed(job, error, attempt.tooMany);
    }

    await this.hook('beforeStore', id);
    if (this.closed) return;
    const staged = await this.storePng(job, rendered.png);
    if (!staged) return;
    const made = { size: staged.size, sha256: staged.sha256, width: rendered.width, height: rendered.height };
    if (!(await completeThumbnail(this.deps.db, id, made, this.deps.clock()))) {
      // The parent was deleted while its thumbnail was drawn: no file may stay behind without a row.
      await this.deps.blobs.delete(job.blob_key);
      this.log.debug({ thumbnailId: id }, 'PDF thumbnail dropped: its file was deleted meanwhile');
      return;
    }
    this.options.onOutcome?.('made');
    this.log.debug(
      {
        ms: Math.round(performance.now() - drawing.started),
        bytesRead: drawing.bytesRead(),
        size: job.parent_size,
        thumbnailId: id,
      },
      'PDF thumbnail made',
    );
  }

  /**
   * The jobs' rows are read one after the other, in queue order, so that renders reach the pool in
   * the order their thumbnails were queued: first queued, first drawn (on PostgreSQL, reads side by
   * side on several connections would answer in any order).
   */
  private async readJobInQueueOrder(id: number): Promise<Job | undefined> {
    const read = this.lastRead.then(() => pendingThumbnailJob(this.deps.db, id));
    this.lastRead = read.catch(() => undefined);
    return read;
  }

  /**
   * Counts a render at its first read, once a worker is free for it and before the worker gets any
   * bytes: a PDF that takes the process down is counted at each start it did, and one that waited
   * in a queue is not. Past `maxAttempts` the count refuses, and the render fails before it begins.
   */
  private attemptCounter(id: number) {
    const attempt = {
      tooMany: false,
      count: async () => {
        const attempts = await countRenderAttempt(this.deps.db, id);
        if (attempts === undefined) throw new Error('the thumbnail is gone');
        if (attempts > this.maxAttempts) {
          attempt.tooMany = true;
          throw new Error('too many attempts');
        }
      },
    };
    return attempt;
  }

  /** Renders the stored PDF; `beforeFirstRead` runs once a worker is free for it, before any byte goes. */
  private render(pdf: { key: string; size: number }, beforeFirstRead?: () => Promise<void>): Render {
    let bytesRead = 0;
    const source = blobPdfSource(this.deps.blobs, pdf, (n) => {
      bytesRead += n;
    });
    let first: Promise<void> | undefined;
    const result = this.deps.pdfThumbnails.render({
      size: source.size,
      read: async (range) => {
        if (beforeFirstRead) await (first ??= beforeFirstRead());
        return source.read(range);
      },
    });
    // An abandoned render's failure is nobody's to handle; a taken-over one is awaited in makeOne.
    result.catch(() => {});
    return { result, started: performance.now(), bytesRead: () => bytesRead };
  }

  /** The render failed: the PDF gets no thumbnail, unless the platform is stopping. */
  private async renderFailed(job: Job, error: unknown, tooManyAttempts: boolean) {
    const reason = tooManyAttempts
      ? 'too_many_attempts'
      : error instanceof PdfThumbnailError
        ? error.reason
        : 'read_failed';
    // Stopping is not the PDF's fault: the thumbnail stays pending and is made after the next start.
    if (reason === 'closed') return;
    const errorName = error instanceof PdfThumbnailError ? error.errorName : (error as Error | null)?.name;
    return this.giveUp(job, reason, errorName);
  }

  /** The PNG committed under the thumbnail's reserved key; undefined (and no thumbnail) when it cannot be. */
  private async storePng(job: Job, png: Buffer): Promise<StagedBlob | undefined> {
    let staged: StagedBlob | undefined;
    try {
      staged = await this.deps.blobs.stage(Readable.from([png]), { maxBytes: png.length, key: job.blob_key });
      await staged.commit();
      return staged;
    } catch (error) {
      // Nothing is under the key when staging or commit fails (a full disk): no stored PNG, no thumbnail.
      await staged?.discard();
      await this.giveUp(job, 'storage_failed', (error as Error).name);
      return undefined;
    }
  }

  /** No thumbnail for this PDF: the row goes, and the log says why (never the file's contents). */
  private async giveUp(job: Job, reason: string, errorName?: string) {
    this.options.onOutcome?.(reason);
    if (await dropPendingThumbnail(this.deps.db, job.id)) {
      const level = reason === 'disabled' ? 'debug' : 'warn';
      this.log[level](
        { reason, errorName, size: job.parent_size, assetId: job.parent_id },
        'PDF uploaded without a thumbnail',
      );
    } else {
      this.log.debug({ thumbnailId: job.id }, 'PDF thumbnail dropped: its file was deleted meanwhile');
    }
  }

  /** A test's hold, given up when the platform stops. */
  private async hook(name: keyof ThumbnailHooks, id: number) {
    const held = this.options.hooks?.[name];
    if (held) await Promise.race([held(id), this.closing]);
  }
}
