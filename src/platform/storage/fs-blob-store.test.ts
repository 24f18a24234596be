import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BlobStore, InvalidBlobKeyError } from './blob-store';
import { blobKeyPattern, defaultHeadBytes, minimumHeadBytes } from './blob-intake';
import { createFsBlobStore } from './fs-blob-store';
import { chunked, countingSource, filesUnder, startBlobWriter } from '../testing/blob-stores';

/** The disk store's own promises: temporary files, renames, fsync, modes. The contract is in blob-store.test.ts. */

let root: string;
let store: BlobStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'blobs-'));
  store = createFsBlobStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

const tmpFiles = () => (existsSync(join(root, 'tmp')) ? readdirSync(join(root, 'tmp')) : []);

async function commitBytes(bytes: Buffer, target = store) {
  const staged = await target.stage(Readable.from([bytes]), { maxBytes: bytes.length });
  await staged.commit();
  return staged.key;
}

async function readKey(key: string, range?: { start: number; end: number }, from = store) {
  const stream = await from.open(key, range);
  if (!stream) throw new Error(`nothing under ${key}`);
  return buffer(stream);
}

describe('stage and commit', () => {
  it('streams multi-megabyte input to disk and reads back the identical bytes', async () => {
    const bytes = randomBytes(5 * 1024 * 1024 + 17);
    const staged = await store.stage(chunked(bytes, 200), { maxBytes: 10 * 1024 * 1024 });

    expect(staged.size).toBe(bytes.length);
    expect(staged.sha256).toBe(sha256(bytes));
    expect(staged.head.length).toBe(defaultHeadBytes);
    expect(staged.head.equals(bytes.subarray(0, defaultHeadBytes))).toBe(true);
    expect(staged.key).toMatch(blobKeyPattern);
    // Staged is not visible: only the temporary file exists.
    expect(await store.open(staged.key)).toBeUndefined();
    expect(await store.size(staged.key)).toBeUndefined();
    expect(tmpFiles()).toHaveLength(1);

    await staged.commit();
    expect(tmpFiles()).toEqual([]);
    expect(filesUnder(root)).toEqual([join(staged.key.slice(0, 2), staged.key)]);
    expect(await store.size(staged.key)).toBe(bytes.length);
    const back = await readKey(staged.key);
    expect(sha256(back)).toBe(sha256(bytes));
    expect(back.equals(bytes)).toBe(true);
  });

  it('keeps only the first bytes as head, and all of a short file', async () => {
    const bytes = randomBytes(10_000);
    const short = await store.stage(Readable.from([bytes.subarray(0, 10)]), { maxBytes: 100 });
    expect(short.head.equals(bytes.subarray(0, 10))).toBe(true);

    const small = createFsBlobStore(root, { headBytes: minimumHeadBytes });
    const staged = await small.stage(chunked(bytes, 7), { maxBytes: 20_000 });
    expect(staged.head.equals(bytes.subarray(0, minimumHeadBytes))).toBe(true);
    await Promise.all([short.discard(), staged.discard()]);

    expect(() => createFsBlobStore(root, { headBytes: 100 })).toThrow(RangeError);
  });

  it('writes committed files readable by the server only', async () => {
    if (process.platform === 'win32') return;
    const key = await commitBytes(Buffer.from('private'));
    expect(statSync(join(root, key.slice(0, 2), key)).mode & 0o777).toBe(0o600);
  });
});

describe('commit and discard states', () => {
  it('leaves nothing under the key when a commit fails, and discard still cleans up', async () => {
    const staged = await store.stage(Readable.from([Buffer.from('doomed')]), { maxBytes: 10 });
    // A file where the fan-out folder should go makes the rename impossible.
    const blocker = join(root, staged.key.slice(0, 2));
    writeFileSync(blocker, 'in the way');
    await expect(staged.commit()).rejects.toThrow();
    expect(await store.size(staged.key)).toBeUndefined();
    expect(tmpFiles()).toHaveLength(1);
    await staged.discard();
    expect(tmpFiles()).toEqual([]);
    rmSync(blocker);
    expect(filesUnder(root)).toEqual([]);
  });
});

describe('reserved keys (pending thumbnails)', () => {
  it('hold nothing until bytes are committed under them, then read back like any key', async () => {
    const key = store.reserveKey();
    expect(key).toMatch(blobKeyPattern);
    expect(await store.open(key)).toBeUndefined();
    const staged = await store.stage(Readable.from([Buffer.from('later bytes')]), { maxBytes: 100, key });
    expect(staged.key).toBe(key);
    // Staged is not committed: still nothing under the key.
    expect(await store.open(key)).toBeUndefined();
    await staged.commit();
    expect((await readKey(key)).toString()).toBe('later bytes');
    expect(filesUnder(root)).toEqual([join(key.slice(0, 2), key)]);
  });
});

describe('keys', () => {
  // That keys are random and never the client's is the contract's (blob-store.test.ts); here, where they go.
  it('are files named as the key, in a folder named by its first two characters, and nothing else', async () => {
    const keys = new Set(
      await Promise.all(Array.from({ length: 20 }, (_, i) => commitBytes(Buffer.from(`file ${i}`)))),
    );
    const files = filesUnder(root);
    expect(files).toHaveLength(20);
    for (const file of files) {
      const [folder, name, ...rest] = file.split(/[\\/]/);
      expect(rest).toEqual([]);
      expect(keys.has(name!)).toBe(true);
      expect(folder).toBe(name!.slice(0, 2));
    }
  });

  // Malformed keys in general are the contract's (blob-store.test.ts); here, real files a path could reach.
  it('refuses keys that name a file outside the store or a staged one, and touches neither', async () => {
    const outside = join(root, '..', `${randomBytes(8).toString('hex')}-sentinel`);
    writeFileSync(outside, 'must survive');
    const staged = await store.stage(Readable.from([Buffer.from('staged')]), { maxBytes: 10 });
    try {
      for (const key of [`../${outside.split(/[\\/]/).pop()!}`, `tmp/${staged.key}`, outside]) {
        await expect(store.open(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.size(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
        await expect(store.delete(key)).rejects.toBeInstanceOf(InvalidBlobKeyError);
      }
      expect(readFileSync(outside, 'utf8')).toBe('must survive');
      expect(tmpFiles()).toHaveLength(1);
    } finally {
      rmSync(outside, { force: true });
      await staged.discard();
    }
  });

  it('lists exactly the committed keys, ignoring anything else in the folders', async () => {
    const committed = [await commitBytes(Buffer.from('one')), await commitBytes(Buffer.from('two'))];
    const pending = await store.stage(Readable.from([Buffer.from('staged')]), { maxBytes: 10 });
    const stray = randomBytes(32).toString('base64url');
    const wrongFolder = stray.startsWith('zz') ? 'yy' : 'zz';
    mkdirSync(join(root, wrongFolder));
    writeFileSync(join(root, wrongFolder, stray), 'not where the store would put it');
    writeFileSync(join(root, wrongFolder, 'notes.txt'), 'not a key');
    writeFileSync(join(root, 'README'), 'not a folder');

    const listed: string[] = [];
    for await (const key of store.keys()) listed.push(key);
    expect(listed.sort()).toEqual([...committed].sort());
    await pending.discard();
  });
});

describe('start-up (U13)', () => {
  it('removes staging leftovers of a previous process and keeps committed files', async () => {
    const kept = randomBytes(10_000);
    const keptKey = await commitBytes(kept);
    // A "crashed" process: staged, never committed nor discarded.
    await store.stage(Readable.from([randomBytes(1000)]), { maxBytes: 10_000 });
    await store.stage(Readable.from([randomBytes(1000)]), { maxBytes: 10_000 });
    writeFileSync(join(root, 'tmp', 'half-written'), 'half');
    mkdirSync(join(root, 'tmp', 'odd-folder'));
    writeFileSync(join(root, 'tmp', 'odd-folder', 'inside'), 'x');

    const restarted = createFsBlobStore(root);
    expect(await restarted.removeTemporaryLeftovers()).toBe(4);
    expect(tmpFiles()).toEqual([]);
    expect(await restarted.removeTemporaryLeftovers()).toBe(0);
    expect((await readKey(keptKey, undefined, restarted)).equals(kept)).toBe(true);
    expect(filesUnder(root)).toEqual([join(keptKey.slice(0, 2), keptKey)]);
  });

  it('removes only the leftovers and keys last written before a time, when asked', async () => {
    const key = await commitBytes(randomBytes(100));
    await store.stage(Readable.from([randomBytes(100)]), { maxBytes: 1000 });
    const anHourAgo = new Date(Date.now() - 3_600_000);
    expect(await store.removeTemporaryLeftovers({ startedBefore: anHourAgo })).toBe(0);
    expect(tmpFiles()).toHaveLength(1);
    const listed: string[] = [];
    for await (const k of store.keys({ startedBefore: anHourAgo })) listed.push(k);
    expect(listed).toEqual([]);

    // Written two hours ago, as far as the disk can tell.
    const twoHoursAgo = new Date(Date.now() - 7_200_000);
    utimesSync(join(root, 'tmp', tmpFiles()[0]!), twoHoursAgo, twoHoursAgo);
    utimesSync(join(root, key.slice(0, 2), key), twoHoursAgo, twoHoursAgo);
    for await (const k of store.keys({ startedBefore: anHourAgo })) listed.push(k);
    expect(listed).toEqual([key]);
    expect(await store.removeTemporaryLeftovers({ startedBefore: anHourAgo })).toBe(1);
    expect(tmpFiles()).toEqual([]);
  });

  it('never shows a partial file under a key when the process is killed mid-upload', async () => {
    const size = 256 * 1024;
    const script = join(root, '..', `${randomBytes(8).toString('hex')}-writer.mts`);
    const storeModule = fileURLToPath(new URL('./fs-blob-store.ts', import.meta.url));
    writeFileSync(
      script,
      `import { randomBytes, createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFsBlobStore } from ${JSON.stringify(storeModule)};
const store = createFsBlobStore(${JSON.stringify(root)});
async function* slow(bytes) {
  for (let i = 0; i < bytes.length; i += 16384) { yield bytes.subarray(i, i + 16384); await sleep(1); }
}
async function loop() {
  for (;;) {
    const bytes = randomBytes(${size});
    const staged = await store.stage(Readable.from(slow(bytes)), { maxBytes: ${size} });
    await staged.commit();
    process.stdout.write(staged.key + ' ' + createHash('sha256').update(bytes).digest('hex') + '\\n');
  }
}
for (let i = 0; i < 4; i++) void loop();
`,
    );
    try {
      const writer = await startBlobWriter(script, 8);
      await writer.kill();

      // Every key the process reported as committed is complete; every file under a key is whole.
      for (const [key, hash] of writer.reported) expect(sha256(await readKey(key))).toBe(hash);
      const restarted = createFsBlobStore(root);
      for await (const key of restarted.keys()) expect(await restarted.size(key)).toBe(size);
      // Four uploads were in flight: their temporary files are what start-up removes.
      expect(await restarted.removeTemporaryLeftovers()).toBeGreaterThanOrEqual(1);
      expect(tmpFiles()).toEqual([]);
    } finally {
      rmSync(script, { force: true });
    }
    // A node process of its own, loading tsx: seconds on a busy machine before it writes a byte.
  }, 90_000);
});

describe('setting up its folders', () => {
  it('reports an unusable root when used, not by crashing at construction, and recovers', async () => {
    const blocked = join(root, 'blocked');
    writeFileSync(blocked, 'a file where the store wants a folder');
    const broken = createFsBlobStore(join(blocked, 'blobs'));
    const { stream } = countingSource(100);
    await expect(broken.stage(stream, { maxBytes: 1000 })).rejects.toMatchObject({ code: 'ENOTDIR' });
    expect(stream.destroyed).toBe(true);
    await expect(broken.removeTemporaryLeftovers()).rejects.toMatchObject({ code: 'ENOTDIR' });

    rmSync(blocked);
    const key = await commitBytes(Buffer.from('works now'), broken);
    expect((await readKey(key, undefined, broken)).toString()).toBe('works now');
    expect(existsSync(join(blocked, 'blobs', 'tmp'))).toBe(true);
  });
});
