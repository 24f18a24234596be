import { createServer, type Server } from 'node:http';
import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type pg from 'pg';
import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { RequestMetrics } from './request-metrics';
import { BlobTooLargeError, InvalidBlobKeyError, type BlobStore } from './storage/blob-store';

/**
 * The platform's Prometheus metrics (docs/deploy.md, "Metrics"), in a registry of its own: made in
 * the composition root (composition/app.ts) and passed down, never prom-client's global one, so that two
 * programs in one process (tests, `npm start`'s supervisor in the future) never mix their series.
 * Served by `serveMetrics` on METRICS_PORT only, never on the API's port.
 */
export interface PlatformMetrics {
  registry: Registry;
  /** One finished request: its route pattern (never the raw path), status and seconds. */
  requestCompleted(method: string, route: string, status: number, seconds: number): void;
  /** An upload request began; the function answers its end, with the bytes it stored. */
  uploadStarted(): (bytes: number) => void;
  thumbnailOutcome(outcome: string): void;
  blobStoreError(operation: string): void;
  sweepFinished(result: { leftovers: number; orphans: number } | 'failed'): void;
  /** Values read when Prometheus scrapes, never on a request. */
  watch(sources: WatchedSources): void;
}

export interface WatchedSources {
  pool?: pg.Pool;
  thumbnails?: { depth(): { waiting: number; running: number } };
  /** Absent without Redis. */
  redisConnected?: () => boolean;
}

/**
 * Request durations from 1 ms to 1 minute: API reads take a few ms, downloads and uploads of
 * 100 MB files minutes on slow links (those end up in +Inf).
 */
const durationBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createPlatformMetrics(): PlatformMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new RequestMetrics(registry, durationBuckets);
  const uploadsInFlight = new Gauge({
    name: 'platform_uploads_in_flight',
    help: 'Upload requests being received',
    registers: [registry],
  });
  const uploadBytes = new Counter({
    name: 'platform_upload_bytes_total',
    help: 'Bytes of the uploads stored: POST bodies answered 201 (multipart framing included), and the bytes each resumable (tus) request added',
    registers: [registry],
  });
  const thumbnailOutcomes = new Counter({
    name: 'platform_thumbnails_total',
    help: 'PDF thumbnails finished, by outcome: made, or the reason there is none',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const blobStoreErrors = new Counter({
    name: 'platform_blob_store_errors_total',
    help: 'Blob-store operations that failed on the store side, by operation',
    labelNames: ['operation'] as const,
    registers: [registry],
  });
  const sweeps = new Counter({
    name: 'platform_storage_sweeps_total',
    help: 'Storage sweeps, by result (ok, failed)',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  const swept = new Counter({
    name: 'platform_storage_swept_total',
    help: 'What storage sweeps removed: staging leftovers and files no row names',
    labelNames: ['kind'] as const,
    registers: [registry],
  });

  return {
    registry,
    requestCompleted: (method, route, status, seconds) => requests.record(method, route, status, seconds),
    uploadStarted() {
      uploadsInFlight.inc();
      return (bytes) => {
        uploadsInFlight.dec();
        uploadBytes.inc(bytes);
      };
    },
    thumbnailOutcome(outcome) {
      thumbnailOutcomes.inc({ outcome });
    },
    blobStoreError(operation) {
      blobStoreErrors.inc({ operation });
    },
    sweepFinished(result) {
      if (result === 'failed') return void sweeps.inc({ result: 'failed' });
      sweeps.inc({ result: 'ok' });
      swept.inc({ kind: 'leftovers' }, result.leftovers);
      swept.inc({ kind: 'orphans' }, result.orphans);
    },
    watch(sources) {
      watchSources(registry, sources);
    },
  };
}

function watchSources(registry: Registry, { pool, thumbnails, redisConnected }: WatchedSources) {
  if (pool) {
    new Gauge({
      name: 'platform_db_pool_connections',
      help: 'PostgreSQL connections of this process: total, idle, and requests waiting for one',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        this.set({ state: 'total' }, pool.totalCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }
  if (thumbnails) {
    new Gauge({
      name: 'platform_thumbnail_queue',
      help: 'PDF thumbnails of this process waiting for a render slot, and being made',
      labelNames: ['state'] as const,
      registers: [registry],
      collect() {
        const { waiting, running } = thumbnails.depth();
        this.set({ state: 'waiting' }, waiting);
        this.set({ state: 'running' }, running);
      },
    });
  }
  if (redisConnected) {
    new Gauge({
      name: 'platform_redis_connected',
      help: '1 while Redis answers this process, 0 while it runs on its own memory (degraded)',
      registers: [registry],
      collect() {
        this.set(redisConnected() ? 1 : 0);
      },
    });
  }
}

/** The client's faults are not the store's: a file too large, a malformed key, an upload cut short. */
const isStoreFault = (error: unknown, source?: Readable) =>
  !(error instanceof BlobTooLargeError) && !(error instanceof InvalidBlobKeyError) && !source?.errored;

/** The same store, counting in `platform_blob_store_errors_total` each operation that fails on its side. */
export function countBlobStoreErrors(blobs: BlobStore, metrics: PlatformMetrics): BlobStore {
  const counted =
    <Args extends unknown[], Result>(operation: string, call: (...args: Args) => Promise<Result>) =>
    (...args: Args) =>
      call(...args).catch((error: unknown) => {
        if (isStoreFault(error, args[0] as Readable)) metrics.blobStoreError(operation);
        throw error;
      });
  return {
    stage: counted('stage', (source, options) => blobs.stage(source, options)),
    reserveKey: () => blobs.reserveKey(),
    open: counted('open', (key: string, range) => blobs.open(key, range)),
    size: counted('size', (key: string) => blobs.size(key)),
    delete: counted('delete', (key: string) => blobs.delete(key)),
    removeTemporaryLeftovers: counted('remove_leftovers', (options) =>
      blobs.removeTemporaryLeftovers(options),
    ),
    keys: (options) => blobs.keys(options),
    reachable: counted('reachable', () => blobs.reachable()),
    freeBytes: () => blobs.freeBytes(),
    ...(blobs.presignedUrl
      ? { presignedUrl: counted('presign', (key: string, headers) => blobs.presignedUrl!(key, headers)) }
      : {}),
  };
}

/**
 * Serves the registry as Prometheus text at /metrics on its own port, from when the platform is
 * ready (before the API listens) until it stops. Any other path answers 404.
 */
export function serveMetrics(app: FastifyInstance, metrics: PlatformMetrics, host: string, port: number) {
  let server: Server | undefined;
  app.addHook('onReady', async () => {
    server = metricsServer(metrics.registry);
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, host, () => resolve());
    });
    app.log.info(`metrics at http://${host}:${port}/metrics`);
  });
  app.addHook('onClose', async () => {
    if (server?.listening) await new Promise((resolve) => server!.close(resolve));
  });
}

/** A bare node:http server: the scrape needs no hooks, headers or limits of the API's. */
export function metricsServer(registry: Registry): Server {
  return createServer((request, response) => {
    if (request.url !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response
        .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
        .end('Not found: try /metrics\n');
      return;
    }
    registry.metrics().then(
      (text) => response.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => response.writeHead(500).end(),
    );
  });
}
