import { constants } from 'node:fs';
import { access, type FileHandle, mkdir, open, readdir, rename, rm, stat, statfs } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import {
  type AgeLimit,
  type BlobRange,
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
import { errorCode, openIfPresent, orIfAbsent } from './absent-files';
import { createFileWriter, type FileWriter } from './file-writer';

export interface FsBlobStoreOptions {
  /** How many leading bytes a StagedBlob keeps in `head`; at least `minimumHeadBytes`. */
  headBytes?: number;
}

const tmpFolderName = 'tmp';

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

/** What every operation of one store shares. */
interface FsStore {
  /** Resolved once, so that a later change of the working directory cannot move the store. */
  root: string;
  tmpDir: string;
  headBytes: number;
  folders: DurableFolders;
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
  const root = resolve(rootDir);
  const tmpDir = join(root, tmpFolderName);
  const store: FsStore = { root, tmpDir, headBytes, folders: new DurableFolders(root, tmpDir) };
  // Functions as own properties, not a class's methods: a store wrapped as `{ ...store, open }`
  // (as tests count reads) keeps every other operation.
  return {
    stage: (source, stageOptions) => stage(store, source, stageOptions),
    reserveKey: newBlobKey,
    open: (key, range) => openBlob(store, key, range),
    size: (key) => blobSize(store, key),
    delete: (key) => deleteBlob(store, key),
    removeTemporaryLeftovers: (limit) => removeTemporaryLeftovers(store, limit),
    reachable: async () => {
      await store.folders.prepareRoot();
      await access(root, constants.W_OK);
    },
    freeBytes: async () => {
      const stats = await statfs(root);
      return stats.bavail * stats.bsize;
    },
    keys: (limit) => committedKeys(store, limit),
  };
}

const folderOf = (store: FsStore, key: string) => join(store.root, key.slice(0, 2));
const pathOf = (store: FsStore, key: string) => join(folderOf(store, key), key);

function checkedPath(store: FsStore, key: string) {
  if (typeof key !== 'string' || !blobKeyPattern.test(key)) throw new InvalidBlobKeyError();
  return pathOf(store, key);
}

/**
 * The store's folders, made durable once each in this process: the root with `tmp` (created on first
 * use rather than by the factory: a failure there would be an unhandled rejection that kills the
 * process before anyone could report it), and the fan-out folders.
 */
class DurableFolders {
  private rootReady: Promise<void> | undefined;
  /**
   * Memoized per folder (not "mkdir said it created it") so that a second commit into a brand-new
   * folder also waits for the first one's fsync.
   */
  private readonly fanOut = new Map<string, Promise<void>>();

  constructor(
    private readonly root: string,
    private readonly tmpDir: string,
  ) {}

  prepareRoot(): Promise<void> {
    this.rootReady ??= this.makeRoot().catch((error: unknown) => {
      this.rootReady = undefined;
      throw error;
    });
    return this.rootReady;
  }

  ensure(folder: string): Promise<void> {
    let done = this.fanOut.get(folder);
    if (!done) {
      done = (async () => {
        await mkdir(folder, { recursive: true, mode: 0o700 });
        await fsyncFolder(this.root);
      })();
      done.catch(() => this.fanOut.delete(folder));
      this.fanOut.set(folder, done);
    }
    return done;
  }

  /** The folder was removed behind our back: the next `ensure` makes it again. */
  forget(folder: string) {
    this.fanOut.delete(folder);
  }

  private async makeRoot() {
    const firstCreated = await mkdir(this.tmpDir, { recursive: true, mode: 0o700 });
    // Only a new root matters: the entry of `tmp` need not survive a crash.
    if (firstCreated === undefined || firstCreated === this.tmpDir) return;
    // Each new folder's entry lives in its parent: make the chain from the parent of the first
    // new folder down to root durable before any file is committed under root.
    const stop = dirname(firstCreated);
    for (let dir = this.root; ; dir = dirname(dir)) {
      await fsyncFolder(dir);
      if (dir === stop || dirname(dir) === dir) break;
    }
  }
}

async function stage(
  store: FsStore,
  source: Readable,
  { maxBytes, key: reserved }: StageOptions,
): Promise<StagedBlob> {
  if (reserved !== undefined && !blobKeyPattern.test(reserved)) {
    source.destroy();
    throw new InvalidBlobKeyError();
  }
  const key = reserved ?? newBlobKey();
  // A temporary name of its own even for a reserved key: two stagings for one key never share a file.
  const tmpPath = join(store.tmpDir, reserved === undefined ? key : newBlobKey());
  const { size, sha256, head } = await writeTemporaryFile(store, source, tmpPath, maxBytes);
  return new FsStagedBlob(key, size, sha256, head, tmpPath, store);
}

/** The source's bytes in a fresh file at `tmpPath`, on disk before this resolves; nothing there when it rejects. */
async function writeTemporaryFile(store: FsStore, source: Readable, tmpPath: string, maxBytes: number) {
  let created = false;
  let handle: FileHandle | undefined;
  let writer: FileWriter | undefined;
  let intake: ReturnType<typeof createIntake>;
  try {
    intake = createIntake(maxBytes, store.headBytes);
    await store.folders.prepareRoot();
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
  return intake.result();
}

/** A file written in `tmp`, moved under its key by `commit`. */
class FsStagedBlob implements StagedBlob {
  private state: 'staged' | 'committing' | 'committed' | 'discarded' = 'staged';
  private committing: Promise<void> | undefined;

  constructor(
    readonly key: string,
    readonly size: number,
    readonly sha256: string,
    readonly head: Buffer,
    private readonly tmpPath: string,
    private readonly store: FsStore,
  ) {}

  async commit() {
    if (this.state !== 'staged') throw new StagedBlobSettledError(this.state);
    this.state = 'committing';
    this.committing = this.moveIntoPlace().then(
      () => {
        this.state = 'committed';
      },
      (error: unknown) => {
        // The temporary file is still there (unless fsync failed): discard can clean it up.
        if (this.state === 'committing') this.state = 'staged';
        throw error;
      },
    );
    await this.committing;
  }

  async discard() {
    // Discarding while a commit runs waits for it, then cleans up only if it failed.
    if (this.state === 'committing') await this.committing?.catch(() => {});
    if (this.state !== 'staged') return;
    this.state = 'discarded';
    await rm(this.tmpPath, { force: true });
  }

  private async moveIntoPlace() {
    const folder = folderOf(this.store, this.key);
    const target = pathOf(this.store, this.key);
    const { folders } = this.store;
    await folders.ensure(folder);
    try {
      await rename(this.tmpPath, target);
    } catch (error) {
      // The fan-out folder was removed behind our back: make it again, once.
      if (errorCode(error) !== 'ENOENT') throw error;
      folders.forget(folder);
      await folders.ensure(folder);
      await rename(this.tmpPath, target);
    }
    try {
      await fsyncFolder(folder);
    } catch (error) {
      // Not durable means not committed: take it back so no caller inserts a row for it.
      await rm(target, { force: true });
      this.state = 'discarded';
      throw error;
    }
  }
}

async function openBlob(store: FsStore, key: string, range?: BlobRange) {
  const path = checkedPath(store, key);
  if (range) assertRange(range);
  const handle = await openIfPresent(path);
  if (!handle) return undefined;
  // The stream closes the handle when it ends or is destroyed.
  return handle.createReadStream(range ? { start: range.start, end: range.end } : {});
}

async function blobSize(store: FsStore, key: string) {
  const path = checkedPath(store, key);
  const stats = await orIfAbsent(stat(path), undefined);
  return stats?.isFile() ? stats.size : undefined;
}

async function deleteBlob(store: FsStore, key: string) {
  // No folder fsync: a deletion lost in a crash leaves a file that no row names, which the
  // start-up sweep removes.
  await rm(checkedPath(store, key), { force: true });
}

async function removeTemporaryLeftovers(store: FsStore, { startedBefore }: AgeLimit = {}) {
  await store.folders.prepareRoot();
  let names = await readdir(store.tmpDir);
  if (startedBefore) names = await writtenBefore(store.tmpDir, names, startedBefore);
  await Promise.all(names.map((name) => rm(join(store.tmpDir, name), { force: true, recursive: true })));
  return names.length;
}

async function* committedKeys(store: FsStore, { startedBefore }: AgeLimit = {}) {
  await store.folders.prepareRoot();
  for (const folder of await readdir(store.root, { withFileTypes: true })) {
    if (!folder.isDirectory() || folder.name === tmpFolderName) continue;
    const path = join(store.root, folder.name);
    // Removed since the listing above: nothing in it.
    const names = await orIfAbsent(readdir(path), []);
    // Only names this store could have written, in the folder it would have put them in.
    const ours = names.filter((name) => blobKeyPattern.test(name) && name.startsWith(folder.name));
    yield* startedBefore ? await writtenBefore(path, ours, startedBefore) : ours;
  }
}

/**
 * The entries of `folder` last written before `time`. A file is written in one go by one upload,
 * so its modification time is at most that upload's end.
 */
async function writtenBefore(folder: string, names: string[], time: Date) {
  const stats = await Promise.all(names.map((name) => orIfAbsent(stat(join(folder, name)), undefined)));
  return names.filter((_, i) => stats[i] !== undefined && stats[i].mtime < time);
}
