import { randomBytes } from 'node:crypto';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { openIfPresent, orIfAbsent } from '../storage/absent-files';
import type { BlobRange, PresignedHeaders } from '../storage/blob-store';

/**
 * Rendition files on local disk (the S3 twin is s3-rendition-cache.ts): `root/v1/<blob key>/<rendition name>.webp`, one folder per
 * original so that deleting an asset is one `rm -r`. Keyed by the blob key, not the asset id:
 * blob keys are random and never reused, while a deleted asset's id may come back.
 *
 * Only ever a cache: losing any of it costs a re-render, never data. Files are written to
 * `root/tmp`, fsynced and renamed into place, so a crash never leaves a half file under a name
 * that delivery would send. Bump `generation` when the rendering changes (format, quality): the
 * start-up sweep then removes the old generation's folder, and nothing old is ever sent.
 */
const generation = 'v1';
const tmpFolderName = 'tmp';
const extension = '.webp';

/** Names this cache makes itself; anything else in its folders is not ours to serve. */
export const safeName = /^[A-Za-z0-9_-]{1,200}$/;

/** A cached rendition ready to send: its size first (for Range), then its bytes. */
export interface CachedRendition {
  size: number;
  /**
   * The bytes, or `range` of them; undefined when they went meanwhile. The stream releases what
   * the file held when it ends or is destroyed; call `stream` once at most.
   */
  stream(range?: BlobRange): Promise<Readable | undefined>;
  /** For answers without a body (HEAD, 416). */
  close(): Promise<void>;
}

export interface RenditionCache {
  /** The rendition opened (`stream` or `close` it), or undefined when it is not cached. */
  open(blobKey: string, name: string): Promise<CachedRendition | undefined>;
  has(blobKey: string, name: string): Promise<boolean>;
  /** Makes `bytes` the file under the name: temporary file, fsync, rename. */
  write(blobKey: string, name: string, bytes: Uint8Array): Promise<void>;
  /** Every rendition of one original. */
  removeAll(blobKey: string): Promise<void>;
  /** The renditions of one original whose names `stale` picks. */
  removeWhere(blobKey: string, stale: (name: string) => boolean): Promise<number>;
  /** Temporary files of a killed process and folders of older generations; call at start only. */
  removeLeftovers(): Promise<number>;
  /**
   * Every original that has renditions, with their names, for the start-up sweep: in one pass over
   * the cache (a bucket lists a thousand objects a request, not one original's).
   */
  originals(): AsyncIterable<{ blobKey: string; names: string[] }>;
  /** The rendition names of one original. */
  names(blobKey: string): Promise<string[]>;
  /** A short-lived URL of the cache's own store for a rendition, where it has one (BlobStore's). */
  presignedUrl?(blobKey: string, name: string, headers: PresignedHeaders): Promise<string>;
}

/** Sizes remembered at most; past that the memory starts afresh (a miss only costs one `stat`). */
const maxRememberedSizes = 10_000;

// Stays whole: the RenditionCache's methods in the interface's order, each short, over one root folder and
// one size memo in this closure.
export function createRenditionCache(rootDir: string): RenditionCache {
  const root = resolve(rootDir);
  const current = join(root, generation);
  const tmpDir = join(root, tmpFolderName);

  // The size of each file this cache wrote or measured, by path: a cached rendition is then sent
  // without a `stat` through the thread pool. A name always holds the same bytes (its original,
  // crop, width and the rendering generation are in it), so a size stays true for as long as the
  // file exists; a removal forgets it, and a file removed by hand fails at `open` as before.
  const sizes = new Map<string, number>();
  const rememberSize = (path: string, size: number) => {
    if (sizes.size >= maxRememberedSizes) sizes.clear();
    sizes.set(path, size);
  };
  const forgetSizes = (folder: string) => {
    for (const path of sizes.keys()) if (path.startsWith(folder)) sizes.delete(path);
  };

  function folderOf(blobKey: string) {
    // Blob keys are ours, but this is a path: refuse anything that could leave the folder.
    if (!safeName.test(blobKey)) throw new Error('invalid blob key for the rendition cache');
    return join(current, blobKey);
  }
  function pathOf(blobKey: string, name: string) {
    if (!safeName.test(name)) throw new Error('invalid rendition name');
    return join(folderOf(blobKey), `${name}${extension}`);
  }

  async function listNames(blobKey: string) {
    const files = await orIfAbsent(readdir(folderOf(blobKey)), []);
    return files.filter((f) => f.endsWith(extension)).map((f) => f.slice(0, -extension.length));
  }

  return {
    async open(blobKey, name) {
      const path = pathOf(blobKey, name);
      const handle = await openIfPresent(path);
      if (!handle) return undefined;
      // Size remembered, or from the open file: a removal after this point cannot change what is sent.
      let size = sizes.get(path);
      if (size === undefined) {
        try {
          size = (await handle.stat()).size;
        } catch (error) {
          await handle.close();
          throw error;
        }
        rememberSize(path, size);
      }
      return {
        size,
        stream: async (range) =>
          handle.createReadStream(range ? { start: range.start, end: range.end } : { start: 0 }),
        close: () => handle.close(),
      };
    },

    async has(blobKey, name) {
      const stats = await orIfAbsent(stat(pathOf(blobKey, name)), undefined);
      return stats?.isFile() ?? false;
    },

    async write(blobKey, name, bytes) {
      const target = pathOf(blobKey, name);
      await mkdir(tmpDir, { recursive: true, mode: 0o700 });
      const tmpPath = join(tmpDir, randomBytes(16).toString('base64url'));
      const handle = await open(tmpPath, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
        // Without it a crash right after the rename could leave an empty file under the name.
        await handle.sync();
      } catch (error) {
        await handle.close().catch(() => {});
        await rm(tmpPath, { force: true });
        throw error;
      }
      await handle.close();
      try {
        await mkdir(folderOf(blobKey), { recursive: true, mode: 0o700 });
        // No folder fsync: a rename lost in a crash only means rendering once more.
        await rename(tmpPath, target);
        rememberSize(target, bytes.length);
      } catch (error) {
        await rm(tmpPath, { force: true });
        throw error;
      }
    },

    async removeAll(blobKey) {
      const folder = folderOf(blobKey);
      forgetSizes(folder + sep);
      await rm(folder, { recursive: true, force: true });
    },

    async removeWhere(blobKey, stale) {
      const doomed = (await listNames(blobKey)).filter(stale);
      await Promise.all(
        doomed.map((name) => {
          sizes.delete(pathOf(blobKey, name));
          return rm(pathOf(blobKey, name), { force: true });
        }),
      );
      return doomed.length;
    },

    async removeLeftovers() {
      let removed = 0;
      const entries = await orIfAbsent(readdir(root), []);
      for (const entry of entries) {
        if (entry === generation) continue;
        if (entry === tmpFolderName) {
          const names = await readdir(tmpDir);
          await Promise.all(names.map((n) => rm(join(tmpDir, n), { force: true, recursive: true })));
          removed += names.length;
        } else {
          await rm(join(root, entry), { recursive: true, force: true });
          removed++;
        }
      }
      return removed;
    },

    async *originals() {
      const blobKeys = (await orIfAbsent(readdir(current), [])).filter((name) => safeName.test(name));
      for (const blobKey of blobKeys) yield { blobKey, names: await listNames(blobKey) };
    },

    names: listNames,
  };
}
