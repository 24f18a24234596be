import { constants } from 'node:fs';
import { access, type FileHandle, mkdir, open, readdir, rename, rm, stat, statfs } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import {
  type BlobStore,
  BlobTooLargeError,
  InvalidBlobKeyError,
  type StagedBlob,
  StagedBlobSettledError,
  type StageOptions,
} from './blob-store';
import {
  assertRange,
  blobKeyPattern,
  checkHeadBytes,
  createIntake,
  defaultHeadBytes,
  isTruncated,
  newBlobKey,
} from './blob-intake';
import { createFileWriter, type FileWriter } from './file-writer';

export interface FsBlobStoreOptions {
  /** How many leading bytes a StagedBlob keeps in `head`; at least `minimumHeadBytes`. */
  headBytes?: number;
}

const tmpFolderName = 'tmp';

const errorCode = (error: unknown) => (error as { code?: unknown } | null)?.code;

/** ENOTDIR too: a file where a fan-out folder should be means no blob there either. */
const isAbsent = (error: unknown) => errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR';

/**
 * A rename or a new folder is durable only once the folder holding the entry is fsynced. Windows
 * cannot open a folder for that, and NTFS journals renames anyway.
 */
async function fsyncFolder(path: string) {
  if (process.platform === 'win32') return;
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Files live under `root/<first two key characters>/<key>` (the fan-out keeps folders small) and are
 * staged in `root/tmp`, on the same filesystem so that commit is an atomic rename: write, fsync,
 * rename, fsync the folder. A crash never leaves a half-written file under a live key; it may leave
 * files in `tmp` (removeTemporaryLeftovers) or a committed file that no row names (the start-up sweep).
 */
export function createFsBlobStore(rootDir: string, options: FsBlobStoreOptions = {}): BlobStore {
  const headBytes = options.headBytes ?? defaultHeadBytes;
  checkHeadBytes(headBytes);
  // Resolved once, so that a later change of the working directory cannot move the store.
  const root = resolve(rootDir);
  const tmpDir = join(root, tmpFolderName);
  const folderOf = (key: string) => join(root, key.slice(0, 2));
  const pathOf = (key: string) => join(folderOf(key), key);

  function checkedPath(key: string) {
    if (typeof key !== 'string' || !blobKeyPattern.test(key)) throw new InvalidBlobKeyError();
    return pathOf(key);
  }

  // Created on first use rather than in the constructor: a failure there would be an unhandled
  // rejection that kills the process before anyone could report it.
  let ready: Promise<void> | undefined;
  function prepare() {
    ready ??= (async () => {
      const firstCreated = await mkdir(tmpDir, { recursive: true, mode: 0o700 });
      // Only a new root matters: the entry of `tmp` need not survive a crash.
      if (firstCreated === undefined || firstCreated === tmpDir) return;
      // Each new folder's entry lives in its parent: make the chain from the parent of the first
      // new folder down to root durable before any file is committed under root.
      const stop = dirname(firstCreated);
      for (let dir = root; ; dir = dirname(dir)) {
        await fsyncFolder(dir);
        if (dir === stop || dirname(dir) === dir) break;
      }
    })().catch((error: unknown) => {
      ready = undefined;
      throw error;
    });
    return ready;
  }

  // Fan-out folders made durable in this process. Memoized per folder (not "mkdir said it created
  // it") so that a second commit into a brand-new folder also waits for the first one's fsync.
  const durableFolders = new Map<string, Promise<void>>();
  function ensureFolder(folder: string) {
    let done = durableFolders.get(folder);
    if (!done) {
      done = (async () => {
        await mkdir(folder, { recursive: true, mode: 0o700 });
        await fsyncFolder(root);
      })();
      done.catch(() => durableFolders.delete(folder));
      durableFolders.set(folder, done);
    }
    return done;
  }

  const newKey = newBlobKey;

  async function stage(source: Readable, { maxBytes, key: reserved }: StageOptions): Promise<StagedBlob> {
    if (reserved !== undefined && !blobKeyPattern.test(reserved)) {
      source.destroy();
      throw new InvalidBlobKeyError();
    }
    const key = reserved ?? newKey();
    // A temporary name of its own even for a reserved key: two stagings for one key never share a file.
    const tmpPath = join(tmpDir, reserved === undefined ? key : newKey());
    let created = false;
    let handle: FileHandle | undefined;
    let writer: FileWriter | undefined;
    let intake: ReturnType<typeof createIntake>;
    try {
      intake = createIntake(maxBytes, headBytes);
      await prepare();
      // `wx`: always a fresh file, never one left behind by someone else.
      handle = await open(tmpPath, 'wx', 0o600);
      created = true;
      writer = createFileWriter(handle);
      for await (const chunk of source as AsyncIterable<unknown>) await writer.write(intake.take(chunk));
      if (isTruncated(source)) throw new BlobTooLargeError(maxBytes);
      await writer.end();
      // Durable before anyone may commit it: after the rename the bytes must already be on disk.
      await handle.sync();
      const closing = handle;
      handle = undefined;
      await closing.close();
    } catch (error) {
      // Leaving the for-await loop destroys the source already; failures outside it do not.
      // Destroying is what keeps the rest of an oversized or unwanted upload from being read.
      source.destroy();
      await writer?.abort();
      await handle?.close().catch(() => {});
      if (created) await rm(tmpPath, { force: true });
      // A multipart stream cut at its limit may report that as its own error instead of ending.
      if (isTruncated(source) && !(error instanceof BlobTooLargeError)) {
        throw new BlobTooLargeError(maxBytes, { cause: error });
      }
      throw error;
    }
    const { size, sha256, head } = intake.result();
    return stagedBlob(key, tmpPath, size, sha256, head);
  }

  function stagedBlob(key: string, tmpPath: string, size: number, sha256: string, head: Buffer): StagedBlob {
    let state: 'staged' | 'committing' | 'committed' | 'discarded' = 'staged';
    let committing: Promise<void> | undefined;

    async function moveIntoPlace() {
      const folder = folderOf(key);
      const target = pathOf(key);
      await ensureFolder(folder);
      try {
        await rename(tmpPath, target);
      } catch (error) {
        // The fan-out folder was removed behind our back: make it again, once.
        if (errorCode(error) !== 'ENOENT') throw error;
        durableFolders.delete(folder);
        await ensureFolder(folder);
        await rename(tmpPath, target);
      }
      try {
        await fsyncFolder(folder);
      } catch (error) {
        // Not durable means not committed: take it back so no caller inserts a row for it.
        await rm(target, { force: true });
        state = 'discarded';
        throw error;
      }
    }

    return {
      key,
      size,
      sha256,
      head,
      async commit() {
        if (state !== 'staged') throw new StagedBlobSettledError(state);
        state = 'committing';
        committing = moveIntoPlace().then(
          () => {
            state = 'committed';
          },
          (error: unknown) => {
            // The temporary file is still there (unless fsync failed): discard can clean it up.
            if (state === 'committing') state = 'staged';
            throw error;
          },
        );
        await committing;
      },
      async discard() {
        // Discarding while a commit runs waits for it, then cleans up only if it failed.
        if (state === 'committing') await committing?.catch(() => {});
        if (state !== 'staged') return;
        state = 'discarded';
        await rm(tmpPath, { force: true });
      },
    };
  }

  return {
    stage,
    reserveKey: newKey,

    async open(key, range) {
      const path = checkedPath(key);
      if (range) assertRange(range);
      let handle: FileHandle;
      try {
        // Opening (not stat, then open) so that a delete in between cannot turn into a stream error.
        handle = await open(path, 'r');
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
      // The stream closes the handle when it ends or is destroyed.
      return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
    },

    async size(key) {
      const path = checkedPath(key);
      try {
        const stats = await stat(path);
        return stats.isFile() ? stats.size : undefined;
      } catch (error) {
        if (isAbsent(error)) return undefined;
        throw error;
      }
    },

    async delete(key) {
      // No folder fsync: a deletion lost in a crash leaves a file that no row names, which the
      // start-up sweep removes.
      await rm(checkedPath(key), { force: true });
    },

    async removeTemporaryLeftovers({ startedBefore } = {}) {
      await prepare();
      let names = await readdir(tmpDir);
      if (startedBefore) names = await writtenBefore(tmpDir, names, startedBefore);
      await Promise.all(names.map((name) => rm(join(tmpDir, name), { force: true, recursive: true })));
      return names.length;
    },

    async reachable() {
      await prepare();
      await access(root, constants.W_OK);
    },

    async freeBytes() {
      const stats = await statfs(root);
      return stats.bavail * stats.bsize;
    },

    async *keys({ startedBefore } = {}) {
      await prepare();
      for (const folder of await readdir(root, { withFileTypes: true })) {
        if (!folder.isDirectory() || folder.name === tmpFolderName) continue;
        const path = join(root, folder.name);
        const names = await readdir(path).catch((error: unknown) => {
          // Removed since the listing above.
          if (isAbsent(error)) return [];
          throw error;
        });
        // Only names this store could have written, in the folder it would have put them in.
        const ours = names.filter((name) => blobKeyPattern.test(name) && name.startsWith(folder.name));
        yield* startedBefore ? await writtenBefore(path, ours, startedBefore) : ours;
      }
    },
  };
}

/**
 * The entries of `folder` last written before `time`. A file is written in one go by one upload,
 * so its modification time is at most that upload's end.
 */
async function writtenBefore(folder: string, names: string[], time: Date) {
  const stats = await Promise.all(
    names.map((name) =>
      stat(join(folder, name)).catch((error: unknown) => {
        if (isAbsent(error)) return undefined;
        throw error;
      }),
    ),
  );
  return names.filter((_, i) => stats[i] !== undefined && stats[i].mtime < time);
}
