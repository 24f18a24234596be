import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { PlatformContext } from '../context';
import {
  completeThumbnail,
  countRenderAttempt,
  dropPendingThumbnail,
  pendingThumbnailIds,
  pendingThumbnailJob,
} from '../db/repositories/assets';
import { type PdfThumbnail, PdfThumbnailError } from './pdf-thumbnail-pool';
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
 * running claim (assets/running-claims.ts; leased in Redis), and an instance takes up only pending
 * thumbnails that no instance holds — at its start and then every `rescanMs`, so that the work of
 * an instance that died is finished by another once its lease has run out.
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

type Deps = Pick<PlatformContext, 'db' | 'blobs' | 'pdfThumbnails' | 'clock' | 'runningClaims'>;

const thumbnailClaim = (id: number) => `thumbnail:${id}`;

export function createPendingThumbnails(
  deps: Deps,
  log: FastifyBaseLogger,
  options: PendingThumbnailOptions,
): PendingThumbnails {
  const ctx = deps;
  const maxAttempts = options.maxAttempts ?? 3;
  const concurrency = Math.max(1, options.concurrency);
  const waiting: number[] = [];
  const running = new Map<number, Promise<void>>();
  /** Renders begun before their thumbnail's row was committed, each holding a slot. */
  const begun = new Map<BegunRender, Render>();
  /** The claims of the thumbnails queued or being made here, to release when they leave. */
  const claims = new Map<number, () => void>();
  let rescan: NodeJS.Timeout | undefined;
  let closed = false;
  let markClosed: () => void = () => {};
  const closing = new Promise<void>((resolve) => {
    markClosed = resolve;
  });

  /** A test's hold, given up when the platform stops. */
  async function hook(name: keyof ThumbnailHooks, id: number) {
    const held = options.hooks?.[name];
    if (held) await Promise.race([held(id), closing]);
  }

  /** No thumbnail for this PDF: the row goes, and the log says why (never the file's contents). */
  async function giveUp(id: number, parentId: number, size: number, reason: string, errorName?: string) {
    options.onOutcome?.(reason);
    if (await dropPendingThumbnail(ctx.db, id)) {
      const level = reason === 'disabled' ? 'debug' : 'warn';
      log[level]({ reason, errorName, size, assetId: parentId }, 'PDF uploaded without a thumbnail');
    } else {
      log.debug({ thumbnailId: id }, 'PDF thumbnail dropped: its file was deleted meanwhile');
    }
  }

  /**
   * The jobs' rows are read one after the other, in queue order, so that renders reach the pool in
   * the order their thumbnails were queued: first queued, first drawn (on PostgreSQL, reads side by
   * side on several connections would answer in any order).
   */
  let lastRead: Promise<unknown> = Promise.resolve();

  /** A render in the pool; when it was handed over and how many bytes it has read (for the debug log). */
  interface Render {
    result: Promise<PdfThumbnail>;
    started: number;
    bytesRead(): number;
  }

  /** Renders the stored PDF; `beforeFirstRead` runs once a worker is free for it, before any byte goes. */
  function render(pdf: { key: string; size: number }, beforeFirstRead?: () => Promise<void>): Render {
    let bytesRead = 0;
    const source = blobPdfSource(deps.blobs, pdf, (n) => {
      bytesRead += n;
    });
    let first: Promise<void> | undefined;
    const result = deps.pdfThumbnails.render({
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

  async function makeOne(id: number, begunRender?: Render) {
    const read = lastRead.then(() => pendingThumbnailJob(ctx.db, id));
    lastRead = read.catch(() => undefined);
    const job = await read;
    // Made already, or its parent was deleted (the row with it).
    if (!job) return;
    await hook('beforeRender', id);
    if (closed) return;

    // The render is counted at its first read, once a worker is free for it and before the worker
    // gets any bytes: a PDF that takes the process down is counted at each start it did, and one
    // that waited in a queue is not. A render begun with the upload was counted in its row.
    let tooManyAttempts = false;
    const countAttempt = async () => {
      const attempts = await countRenderAttempt(ctx.db, id);
      if (attempts === undefined) throw new Error('the thumbnail is gone');
      if (attempts > maxAttempts) {
        tooManyAttempts = true;
        throw new Error('too many attempts');
      }
    };
    const drawing = begunRender ?? render({ key: job.parent_key, size: job.parent_size }, countAttempt);
    let rendered;
    try {
      rendered = await drawing.result;
    } catch (error) {
      const reason = tooManyAttempts
        ? 'too_many_attempts'
        : error instanceof PdfThumbnailError
          ? error.reason
          : 'read_failed';
      // Stopping is not the PDF's fault: the thumbnail stays pending and is made after the next start.
      if (reason === 'closed') return;
      const errorName = error instanceof PdfThumbnailError ? error.errorName : (error as Error | null)?.name;
      return giveUp(id, job.parent_id, job.parent_size, reason, errorName);
    }

    await hook('beforeStore', id);
    if (closed) return;
    let staged;
    try {
      staged = await deps.blobs.stage(Readable.from([rendered.png]), {
        maxBytes: rendered.png.length,
        key: job.blob_key,
      });
      await staged.commit();
    } catch (error) {
      // Nothing is under the key when staging or commit fails (a full disk): no stored PNG, no thumbnail.
      await staged?.discard();
      return giveUp(id, job.parent_id, job.parent_size, 'storage_failed', (error as Error).name);
    }
    const made = { size: staged.size, sha256: staged.sha256, width: rendered.width, height: rendered.height };
    const completed = await completeThumbnail(ctx.db, id, made, ctx.clock());
    if (!completed) {
      // The parent was deleted while its thumbnail was drawn: no file may stay behind without a row.
      await deps.blobs.delete(job.blob_key);
      log.debug({ thumbnailId: id }, 'PDF thumbnail dropped: its file was deleted meanwhile');
      return;
    }
    options.onOutcome?.('made');
    log.debug(
      {
        ms: Math.round(performance.now() - drawing.started),
        bytesRead: drawing.bytesRead(),
        size: job.parent_size,
        thumbnailId: id,
      },
      'PDF thumbnail made',
    );
  }

  function pump() {
    while (!closed && running.size + begun.size < concurrency && waiting.length > 0) run(waiting.shift()!);
  }

  /**
   * Makes the thumbnail in a slot of its own, taken now. It begins once the caller's answer is on its
   * way: an upload's 201 does not wait for its thumbnail's first database reads and writes (on SQLite
   * they hold the event loop, a commit an fsync).
   */
  function run(id: number, begunRender?: Render) {
    const job = new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => makeOne(id, begunRender))
      .catch((error: unknown) => {
        // A database or disk failure: the row stays pending and is tried again at the next rescan
        // or start (render_attempts bounds how often).
        options.onOutcome?.('failed');
        log.error({ err: error, thumbnailId: id }, 'PDF thumbnail failed; it stays pending');
      })
      .finally(() => {
        running.delete(id);
        release(id);
        pump();
      });
    running.set(id, job);
  }

  /** Marks the thumbnail as being made here, for the other instances' rescans. */
  function claim(id: number) {
    const held = Promise.resolve(deps.runningClaims.hold(thumbnailClaim(id)));
    claims.set(id, () => void held.then((c) => c.release()));
  }

  function release(id: number) {
    claims.get(id)?.();
    claims.delete(id);
  }

  async function takeUpPending() {
    const pending = await pendingThumbnailIds(ctx.db);
    const elsewhere = await deps.runningClaims.running(pending.map(thumbnailClaim));
    const ids = pending.filter((id) => !elsewhere.has(thumbnailClaim(id)) && !claims.has(id));
    for (const id of ids) make(id);
    if (ids.length > 0) log.info({ count: ids.length }, 'making PDF thumbnails left pending');
    return ids.length;
  }

  function make(id: number, handle?: BegunRender) {
    const begunRender = handle && begun.get(handle);
    if (handle) begun.delete(handle);
    if (closed || claims.has(id)) return;
    claim(id);
    // The slot of a begun render passes to its thumbnail.
    if (begunRender) return run(id, begunRender);
    waiting.push(id);
    pump();
  }

  return {
    begin(pdf) {
      const free = waiting.length === 0 && running.size + begun.size < concurrency;
      if (closed || !free || !deps.pdfThumbnails.hasIdleWorker()) return undefined;
      const drawing = render(pdf);
      const handle: BegunRender = {
        abandon() {
          if (!begun.delete(handle)) return;
          // What it draws is dropped (its worker finishes it); its slot is free for the thumbnails waiting.
          void drawing.result
            .catch(() => undefined)
            .then(() =>
              log.debug({ size: pdf.size }, 'PDF thumbnail render dropped: its upload was not kept'),
            );
          pump();
        },
      };
      begun.set(handle, drawing);
      return handle;
    },

    make,

    async resume() {
      rescan ??= setInterval(() => {
        takeUpPending().catch((error: unknown) =>
          log.error({ err: error }, 'looking for pending PDF thumbnails failed; tried again later'),
        );
      }, options.rescanMs ?? 10_000).unref();
      return takeUpPending();
    },

    retryAfterSeconds(id) {
      // Renders take about a second of a worker each (more on a busy machine): one second per
      // round of renders ahead of this one.
      const ahead = waiting.indexOf(id);
      if (ahead === -1) return 1;
      return Math.min(60, 1 + Math.ceil((ahead + 1) / concurrency));
    },

    depth() {
      return { waiting: waiting.length, running: running.size + begun.size };
    },

    async close() {
      closed = true;
      clearInterval(rescan);
      markClosed();
      // What waits here is left to the other instances (or this one's next start).
      for (const id of waiting.splice(0)) release(id);
      await deps.pdfThumbnails.close();
      await Promise.allSettled([...running.values()]);
    },
  };
}
