import { availableParallelism } from 'node:os';
import type { Readable } from 'node:stream';
import pLimit from 'p-limit';
import { cropOf } from '../../shared/assets/crop';
import type { DB } from '../db/database';
import { assetByBlobKey } from '../db/repositories/assets';
import type { AssetRow } from '../db/schema';
import { ApiError, notFound } from '../http/errors';
import type { BlobStore, PresignedHeaders } from '../storage/blob-store';
import { defaultRenderLimits, renderImage, type RenderLimits } from './render-image';
import type { CachedRendition, RenditionCache } from './rendition-cache';
import { cropTag, isRenderable, renditionName, type RenditionSpec } from './rendition-request';

/** The columns of an asset row that renditions depend on. */
export type RenditionSource = Pick<AssetRow, 'blob_key' | 'size' | 'content_type' | 'meta'>;

export type OpenRendition = CachedRendition;

export interface Renditions {
  /** Makes sure the rendition is cached, rendering it now if needed; image problems are 422s. */
  ensure(source: RenditionSource, spec: RenditionSpec): Promise<void>;
  /** The cached rendition, rendered first if it is not (yet, or any more) cached. */
  open(source: RenditionSource, spec: RenditionSpec): Promise<OpenRendition>;
  /**
   * A short-lived URL of the cache's store for the rendition, rendered first if needed; undefined
   * when the cache has no URLs of its own (the disk).
   */
  presignedUrl(
    source: RenditionSource,
    spec: RenditionSpec,
    headers: PresignedHeaders,
  ): Promise<string | undefined>;
  /** Drops every rendition of an original whose bytes were deleted. */
  forget(blobKey: string): Promise<void>;
  /** Drops the cropped renditions made for any crop other than the asset's current one. */
  cropChanged(source: RenditionSource): Promise<void>;
  /** Start-up: temporary files, old generations, renditions of deleted assets and of old crops. */
  sweep(db: DB): Promise<{ removed: number }>;
}

export interface RenditionOptions {
  limits?: RenderLimits;
  /** Renders at the same time. */
  concurrency?: number;
}

/**
 * sharp runs on libuv's thread pool (4 threads unless UV_THREADPOOL_SIZE says otherwise), which
 * file reads, fsync and scrypt share. Leaving two threads free keeps downloads and sign-ins moving
 * while images render; more renders at once would only queue inside the pool anyway.
 */
function defaultConcurrency() {
  const pool = Number(process.env.UV_THREADPOOL_SIZE) || 4;
  return Math.max(1, Math.min(availableParallelism(), pool - 2));
}

/** How long a failed render is remembered, so a hostile file cannot make us retry it in a loop. */
const failureMemoryMs = 10 * 60_000;
const maxRememberedFailures = 1000;

async function readAll(stream: Readable, size: number): Promise<Buffer> {
  // sharp buffers a stream input whole before decoding anyway; reading it here keeps a failing
  // read and a failing decode apart, and the size is known so nothing is copied twice.
  const buffer = Buffer.allocUnsafe(size);
  let offset = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (offset + chunk.length > size) throw new Error('the stored file is larger than its row says');
    chunk.copy(buffer, offset);
    offset += chunk.length;
  }
  if (offset !== size) throw new Error('the stored file is shorter than its row says');
  return buffer;
}

/**
 * Renditions of image assets, computed once and cached (on disk, or in the bucket) by (original,
 * variant, width, crop). Concurrent first requests for the same rendition share one render.
 *
 * Stays whole: its methods share the in-flight renders and the remembered failures of this closure, which
 * no other code may reach.
 */
export function createRenditions(
  cache: RenditionCache,
  blobs: BlobStore,
  options: RenditionOptions = {},
): Renditions {
  const limits = options.limits ?? defaultRenderLimits;
  const limited = pLimit(options.concurrency ?? defaultConcurrency());
  const inFlight = new Map<string, Promise<void>>();
  const failures = new Map<string, { error: ApiError; until: number }>();

  const keyOf = (blobKey: string, name: string) => `${blobKey}/${name}`;

  function rememberFailure(key: string, error: ApiError) {
    if (failures.size >= maxRememberedFailures) failures.delete(failures.keys().next().value!);
    failures.set(key, { error, until: Date.now() + failureMemoryMs });
  }

  async function render(source: RenditionSource, spec: RenditionSpec, name: string) {
    // Reading inside the gate too: waiting renders hold no copy of their original in memory.
    const bytes = await limited(async () => {
      const stream = await blobs.open(source.blob_key);
      // The asset was deleted while this request was under way.
      if (!stream) throw notFound('This file no longer exists.');
      return renderImage(await readAll(stream, source.size), spec, limits);
    });
    await cache.write(source.blob_key, name, bytes);
  }

  /** Renders unless cached; one render per rendition however many requests want it. */
  async function produce(source: RenditionSource, spec: RenditionSpec, name: string) {
    const key = keyOf(source.blob_key, name);
    const failed = failures.get(key);
    if (failed && failed.until > Date.now()) throw failed.error;
    let running = inFlight.get(key);
    if (!running) {
      running = render(source, spec, name).catch((error: unknown) => {
        if (error instanceof ApiError && error.status === 422) rememberFailure(key, error);
        throw error;
      });
      inFlight.set(key, running);
      const done = () => void inFlight.delete(key);
      running.then(done, done);
    }
    await running;
  }

  function check(source: RenditionSource) {
    // Callers resolve the request against the row first; this guards the cache, not the API.
    if (!isRenderable(source.content_type)) throw new Error(`no renditions of ${source.content_type}`);
  }

  /** Lets renders of this original finish, so none writes a file after it was cleaned up. */
  async function settle(blobKey: string) {
    const prefix = `${blobKey}/`;
    const running = [...inFlight].filter(([key]) => key.startsWith(prefix)).map(([, p]) => p);
    await Promise.allSettled(running);
  }

  function forgetFailures(blobKey: string, which: (name: string) => boolean = () => true) {
    const prefix = `${blobKey}/`;
    for (const key of failures.keys()) {
      if (key.startsWith(prefix) && which(key.slice(prefix.length))) failures.delete(key);
    }
  }

  /** Cropped renditions whose crop is not `current`. */
  const otherCrops = (current: RenditionSpec['crop']) => {
    const keep = `cropped-${cropTag(current)}-`;
    return (name: string) => name.startsWith('cropped-') && !name.startsWith(keep);
  };

  return {
    async ensure(source, spec) {
      check(source);
      const name = renditionName(spec);
      if (await cache.has(source.blob_key, name)) return;
      await produce(source, spec, name);
    },

    async open(source, spec) {
      check(source);
      const name = renditionName(spec);
      let file = await cache.open(source.blob_key, name);
      if (!file) {
        await produce(source, spec, name);
        file = await cache.open(source.blob_key, name);
      }
      // Removed between the render and here: the crop changed or the asset went away.
      if (!file) throw new ApiError(409, 'rendition_changed', 'The file changed; ask for a new link.');
      return file;
    },

    async presignedUrl(source, spec, headers) {
      if (!cache.presignedUrl) return undefined;
      await this.ensure(source, spec);
      return cache.presignedUrl(source.blob_key, renditionName(spec), headers);
    },

    async forget(blobKey) {
      forgetFailures(blobKey);
      await settle(blobKey);
      await cache.removeAll(blobKey);
    },

    async cropChanged(source) {
      const stale = otherCrops(cropOf(JSON.parse(source.meta) as Record<string, unknown>) ?? null);
      forgetFailures(source.blob_key, stale);
      await settle(source.blob_key);
      await cache.removeWhere(source.blob_key, stale);
    },

    async sweep(db) {
      let removed = await cache.removeLeftovers();
      for await (const { blobKey, names } of cache.originals()) {
        const row = await assetByBlobKey(db, blobKey);
        if (!row || !isRenderable(row.content_type)) {
          await cache.removeAll(blobKey);
          removed++;
          continue;
        }
        const crop = cropOf(JSON.parse(row.meta) as Record<string, unknown>) ?? null;
        // Most originals have no old crop: they cost the cache nothing more.
        if (names.some(otherCrops(crop))) removed += await cache.removeWhere(blobKey, otherCrops(crop));
      }
      return { removed };
    },
  };
}
