import type { FastifyBaseLogger } from 'fastify';
import type { DB } from '../db/database';
import { assetByBlobKey } from '../db/repositories/assets';
import type { BlobStore } from './blob-store';

/** What a sweep reads and deletes: the asset rows, the stored blobs, and the time. */
interface SweepDeps {
  db: DB;
  blobs: BlobStore;
  clock: () => number;
}

export interface SweepOptions {
  /**
   * Only what is older than this: for a store that other instances use at the same time. Without
   * it everything goes, uploads in flight included, which only the store's one process may do, at
   * its start.
   */
  minAgeMs?: number;
}

/**
 * How old an object without a row must be before the sweep of a shared bucket may take it.
 *
 * Decided: listing with an age limit, not a table of pending uploads. An object is without its row
 * only while the request that uploads it runs (the row is inserted right after the body is in and
 * the object complete), and no request outlives REQUEST_TIMEOUT_MS: Node ends one that has not
 * arrived by then. So whatever has no row and is older than that, plus a margin for the work after
 * the body (image probe, insert) and for clocks that differ between instances and the bucket (S3
 * refuses requests from a clock more than 15 minutes off), is left by an instance that died. A
 * table would add two writes to every upload and need the very same age rule for the entries of
 * dead instances. A pending thumbnail's row comes before its PNG, so it never looks orphaned.
 */
export const orphanAgeMs = (requestTimeoutMs: number) => requestTimeoutMs + 15 * 60_000;

/**
 * Staging leftovers of a killed process go, and so do stored files that no asset row names (a
 * crash between writing the file and inserting its row, or between deleting a row and its file).
 * Rows are never removed here: a row is only ever inserted after its file is durable, except a
 * pending thumbnail's, whose reserved key holds nothing until its PNG is made (it is made again
 * after the start: media/pending-thumbnails.ts). A PNG committed just before a crash, its row still
 * pending, is kept here and replaced when it is made again.
 */
export async function sweepStorage(ctx: SweepDeps, { minAgeMs }: SweepOptions = {}) {
  const age = minAgeMs === undefined ? {} : { startedBefore: new Date(ctx.clock() - minAgeMs) };
  const leftovers = await ctx.blobs.removeTemporaryLeftovers(age);
  let orphans = 0;
  for await (const key of ctx.blobs.keys(age)) {
    if (!(await assetByBlobKey(ctx.db, key))) {
      await ctx.blobs.delete(key);
      orphans++;
    }
  }
  return { leftovers, orphans };
}

/**
 * A shared bucket is swept at each start and then every `everyMs` too: the orphans of an instance
 * that died are younger than the age limit at the restart that follows, and would otherwise wait
 * for the next one. Answers the function that stops it.
 */
export function sweepPeriodically(
  ctx: SweepDeps,
  log: FastifyBaseLogger,
  minAgeMs: number,
  everyMs = minAgeMs,
  /** Told each sweep's result (the metrics). */
  onSwept?: (result: { leftovers: number; orphans: number } | 'failed') => void,
) {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= sweepStorage(ctx, { minAgeMs })
      .then(
        (swept) => {
          onSwept?.(swept);
          if (swept.leftovers + swept.orphans > 0) log.info(swept, 'storage swept');
        },
        (error: unknown) => {
          onSwept?.('failed');
          log.error({ err: error }, 'storage sweep failed; tried again later');
        },
      )
      .finally(() => {
        running = undefined;
      });
  }, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
