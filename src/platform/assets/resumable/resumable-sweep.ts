import type { DataStore } from '@tus/utils';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { AssetsContext } from '../assets-context';
import { deleteResumableUpload, expiredResumableUploads } from '../../db/repositories/resumable-uploads';

/**
 * Resumable uploads past their expiry go, bytes and rows: an unfinished one's bytes from the tus
 * store, and every expired row (a finished one's row only answered its asset to a late GET). Then
 * whatever the store itself holds past the expiry without a row (an instance that died between the
 * store and the row) goes by the store's own expiry (@tus/file-store, @tus/s3-store).
 */
export async function sweepResumableUploads(ctx: Pick<AssetsContext, 'db' | 'clock'>, store: DataStore) {
  let swept = 0;
  for (;;) {
    const expired = await expiredResumableUploads(ctx.db, ctx.clock());
    for (const upload of expired) {
      if (upload.asset_id === null) await store.remove(upload.id).catch(() => {});
      await deleteResumableUpload(ctx.db, upload.id);
      swept++;
    }
    if (expired.length === 0) break;
  }
  const leftovers = await store.deleteExpired().catch(() => 0);
  return { swept, leftovers };
}

/**
 * At the start and then periodically, as the storage sweep (storage/sweep.ts): every tenth of the
 * expiry, at most every ten minutes, so that an upload outlives its expiry by a tenth at most.
 */
export function sweepResumableUploadsPeriodically(
  ctx: Pick<AssetsContext, 'db' | 'clock' | 'config'>,
  store: DataStore,
  log: FastifyBaseLogger,
) {
  const everyMs = Math.max(100, Math.min(600_000, ctx.config.resumableUploadExpiryMs / 10));
  let running: Promise<void> | undefined;
  const sweep = () => {
    running ??= sweepResumableUploads(ctx, store)
      .then(
        (result) => {
          if (result.swept + result.leftovers > 0) log.info(result, 'expired resumable uploads swept');
        },
        (error: unknown) => log.error({ err: error }, 'resumable upload sweep failed; tried again later'),
      )
      .finally(() => {
        running = undefined;
      });
  };
  sweep();
  const timer = setInterval(sweep, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The periodic sweep, from the moment `app` is ready until it closes. */
export function sweepResumableUploadsWhileOpen(
  app: FastifyInstance,
  ctx: Pick<AssetsContext, 'db' | 'clock' | 'config'>,
  store: DataStore,
) {
  let stopSweeps = async () => {};
  app.addHook('onReady', async () => {
    stopSweeps = sweepResumableUploadsPeriodically(ctx, store, app.log);
  });
  app.addHook('onClose', async () => stopSweeps());
}
