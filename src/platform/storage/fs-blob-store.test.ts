import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type BlobStore,
  BlobTooLargeError,
  InvalidBlobKeyError,
  type StagedBlob,
  StagedBlobSettledError,
} from './blob-store';
import { blobKeyPattern, createFsBlobStore, defaultHeadBytes, minimumHeadBytes } from './fs-blob-store';

let root: string;
let store: BlobStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'blobs-'));
  store = createFsBlobStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** `bytes` as a stream of `count` chunks of uneven sizes, the way a socket delivers them. */
function chunked(bytes: Buffer, count: number) {
  const cuts = [
    0,
    ...Array.from({ length: count - 1 }, () => Math.floor(Math.random() * bytes.length)),
    bytes.length,
  ];
  cuts.sort((a, b) => a - b);
  return Readable.from(cuts.slice(1).map((end, i) => bytes.subarray(cuts[i], end)));
}

/** A generated source of `total` bytes that counts what was pulled from it. */
function countingSource(total: number, chunkSize = 64 * 1024) {
  const counter = { pulled: 0 };
  const chunk = Buffer.alloc(chunkSize, 7);
  const stream = new Readable({
    read() {
      if (counter.pulled >= total) return void this.push(null);
      const size = Math.min(chunkSize, total - counter.pulled);
      counter.pulled += size;
      this.push(chunk.subarray(0, size));
    },
  });
  return { stream, counter };
}

/** Every file under `dir`, relative to it: what the store left on disk. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();

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

  it('stages an empty file', async () => {
    const staged = await store.stage(Readable.from([]), { maxBytes: 10 });
    expect(staged.size).toBe(0);
    expect(staged.sha256).toBe(sha256(Buffer.alloc(0)));
    expect(staged.head.length).toBe(0);
    await staged.commit();
    expect((await readKey(staged.key)).length).toBe(0);
  });

  it('writes committed files readable by the server only', async () => {
    if (process.platform === 'win32') return;
    const key = await commitBytes(Buffer.from('private'));
    expect(statSync(join(root, key.slice(0, 2), key)).mode & 0o777).toBe(0o600);
  });

  it('refuses text streams, whose chunks are no longer the bytes of the file', async () => {
    const source = Readable.from(['some text']);
    await expect(store.stage(source, { maxBytes: 100 })).rejects.toThrow(TypeError);
    expect(filesUnder(root)).toEqual([]);
  });

  it('refuses a limit that is not a byte count, without reading the source', async () => {
    for (const maxBytes of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      const { stream, counter } = countingSource(1000);
      await expect(store.stage(stream, { maxBytes })).rejects.toThrow(RangeError);
      expect(counter.pulled).toBe(0);
      expect(stream.destroyed).toBe(true);
    }
  });
});

describe('size limit (U5)', () => {
  it('accepts exactly the limit, in one chunk or many', async () => {
    const bytes = randomBytes(100_000);
    for (const source of [Readable.from([bytes]), chunked(bytes, 37)]) {
      const staged = await store.stage(source, { maxBytes: bytes.length });
      expect(staged.size).toBe(bytes.length);
      await staged.commit();
      expect((await readKey(staged.key)).equals(bytes)).toBe(true);
    }
  });

  it('refuses one byte more, keeping nothing in tmp nor under any key', async () => {
    const bytes = randomBytes(100_001);
    for (const source of [Readable.from([bytes]), chunked(bytes, 37)]) {
      const error = await store.stage(source, { maxBytes: 100_000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BlobTooLargeError);
      expect((error as BlobTooLargeError).maxBytes).toBe(100_000);
      expect(source.destroyed).toBe(true);
    }
    expect(filesUnder(root)).toEqual([]);
  });

  it('stops reading a 50 MB stream soon after the 1 MB limit', async () => {
    const { stream, counter } = countingSource(50 * 1024 * 1024);
    await expect(store.stage(stream, { maxBytes: 1024 * 1024 })).rejects.toBeInstanceOf(BlobTooLargeError);
    // The limit, the chunk that crossed it, and what the stream had buffered ahead (16-64 KB).
    expect(counter.pulled).toBeGreaterThan(1024 * 1024);
    expect(counter.pulled).toBeLessThanOrEqual(1024 * 1024 + 4 * 64 * 1024);
    expect(stream.destroyed).toBe(true);
    // Nothing more is pulled later either.
    const pulled = counter.pulled;
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(counter.pulled).toBe(pulled);
    expect(filesUnder(root)).toEqual([]);
  });

  it('treats a multipart stream cut at its own limit as too large, however it says so', async () => {
    // @fastify/multipart with throwFileSizeLimit: false ends the stream and sets `truncated`.
    const ended = Object.assign(Readable.from([Buffer.alloc(10)]), { truncated: true });
    await expect(store.stage(ended, { maxBytes: 100 })).rejects.toBeInstanceOf(BlobTooLargeError);

    // With throwFileSizeLimit (the default) it sets `truncated` and fails the stream.
    const failed = Object.assign(
      new Readable({
        read() {
          this.push(Buffer.alloc(10));
          failed.truncated = true;
          this.destroy(
            Object.assign(new Error('request file too large'), { code: 'FST_REQ_FILE_TOO_LARGE' }),
          );
        },
      }),
      { truncated: false },
    );
    const error = await store.stage(failed, { maxBytes: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlobTooLargeError);
    expect((error as Error).cause).toMatchObject({ code: 'FST_REQ_FILE_TOO_LARGE' });
    expect(filesUnder(root)).toEqual([]);
  });
});

describe('failed and abandoned uploads (U7)', () => {
  it('rejects with the error of a source that fails midway, keeping nothing', async () => {
    const failure = new Error('client went away');
    let sent = 0;
    const source = new Readable({
      read() {
        sent += 1;
        if (sent > 20) this.destroy(failure);
        else this.push(randomBytes(64 * 1024));
      },
    });
    await expect(store.stage(source, { maxBytes: 100 * 1024 * 1024 })).rejects.toBe(failure);
    expect(sent).toBeGreaterThan(20);
    expect(filesUnder(root)).toEqual([]);
  });

  it('rejects when the source is destroyed without an error', async () => {
    const source = new Readable({ read() {} });
    source.push(Buffer.alloc(1000));
    const staging = store.stage(source, { maxBytes: 100_000 });
    setTimeout(() => source.destroy(), 10);
    await expect(staging).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    expect(filesUnder(root)).toEqual([]);
  });

  it('keeps nothing when an HTTP client disconnects halfway', async () => {
    let staging: Promise<StagedBlob> | undefined;
    const server = createServer((req) => {
      staging = store.stage(req, { maxBytes: 100 * 1024 * 1024 });
      staging.catch(() => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = request({
        port,
        host: '127.0.0.1',
        method: 'POST',
        headers: { 'content-length': String(10 * 1024 * 1024) },
      });
      client.on('error', () => {});
      client.write(randomBytes(1024 * 1024));
      // Wait until the server is writing the upload to disk, then vanish.
      await expect
        .poll(() => tmpFiles().length > 0 && statSync(join(root, 'tmp', tmpFiles()[0]!)).size > 0)
        .toBe(true);
      expect(tmpFiles()).toHaveLength(1);
      client.destroy();
      await expect(staging).rejects.toThrow();
      expect(filesUnder(root)).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('discards staged bytes, and discarding twice is harmless', async () => {
    const staged = await store.stage(Readable.from([randomBytes(5000)]), { maxBytes: 10_000 });
    expect(tmpFiles()).toHaveLength(1);
    await staged.discard();
    await staged.discard();
    expect(filesUnder(root)).toEqual([]);
    expect(await store.open(staged.key)).toBeUndefined();
  });
});

describe('commit and discard states', () => {
  it('refuses to commit twice or after a discard', async () => {
    const committed = await store.stage(Readable.from([Buffer.from('a')]), { maxBytes: 10 });
    await committed.commit();
    await expect(committed.commit()).rejects.toBeInstanceOf(StagedBlobSettledError);
    // Discarding a committed blob leaves it alone: deleting is the store's `delete`.
    await committed.discard();
    expect((await readKey(committed.key)).toString()).toBe('a');

    const discarded = await store.stage(Readable.from([Buffer.from('b')]), { maxBytes: 10 });
    await discarded.discard();
    await expect(discarded.commit()).rejects.toBeInstanceOf(StagedBlobSettledError);
    expect(await store.open(discarded.key)).toBeUndefined();
  });

  it('lets only one of two concurrent commits through', async () => {
    const staged = await store.stage(Readable.from([Buffer.from('once')]), { maxBytes: 10 });
    const results = await Promise.allSettled([staged.commit(), staged.commit()]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect((await readKey(staged.key)).toString()).toBe('once');
  });

  it('waits for a commit in flight before discarding, and then keeps the committed file', async () => {
    const staged = await store.stage(Readable.from([Buffer.from('kept')]), { maxBytes: 10 });
    await Promise.all([staged.commit(), staged.discard()]);
    expect((await readKey(staged.key)).toString()).toBe('kept');
    expect(tmpFiles()).toEqual([]);
  });

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

describe('reading', () => {
  it('reads inclusive byte ranges', async () => {
    const bytes = randomBytes(300_000);
    const key = await commitBytes(bytes);
    expect((await readKey(key, { start: 0, end: 0 })).equals(bytes.subarray(0, 1))).toBe(true);
    expect((await readKey(key, { start: 2, end: 5 })).equals(bytes.subarray(2, 6))).toBe(true);
    expect((await readKey(key, { start: 100_000, end: 299_999 })).equals(bytes.subarray(100_000))).toBe(true);
    expect((await readKey(key, { start: 299_999, end: 299_999 })).equals(bytes.subarray(299_999))).toBe(true);
    // Past the end: what there is, the way a file read behaves.
    expect((await readKey(key, { start: 299_990, end: 400_000 })).equals(bytes.subarray(299_990))).toBe(true);
  });

  it('refuses ranges that are not byte ranges', async () => {
    const key = await commitBytes(Buffer.from('0123456789'));
    for (const range of [
      { start: 5, end: 4 },
      { start: -1, end: 4 },
      { start: 0.5, end: 4 },
      { start: 0, end: Number.NaN },
    ]) {
      await expect(store.open(key, range)).rejects.toThrow(RangeError);
    }
  });

  it('answers undefined for a well-formed key that holds nothing', async () => {
    const absent = randomBytes(32).toString('base64url');
    expect(await store.open(absent)).toBeUndefined();
    expect(await store.size(absent)).toBeUndefined();
  });

  it('deletes idempotently', async () => {
    const key = await commitBytes(Buffer.from('to be deleted'));
    expect(await store.size(key)).toBe(13);
    await store.delete(key);
    await store.delete(key);
    await store.delete(randomBytes(32).toString('base64url'));
    expect(await store.open(key)).toBeUndefined();
    expect(await store.size(key)).toBeUndefined();
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

  it('replace what a key held when committed again (a copy left by a crash), leaving no temporary file', async () => {
    const key = store.reserveKey();
    await (await store.stage(Readable.from([Buffer.from('first')]), { maxBytes: 100, key })).commit();
    const second = await store.stage(Readable.from([Buffer.from('second')]), { maxBytes: 100, key });
    await second.commit();
    expect((await readKey(key)).toString()).toBe('second');
    expect(tmpFiles()).toEqual([]);
    expect(filesUnder(root)).toEqual([join(key.slice(0, 2), key)]);
  });

  it('are never handed out twice, and a key the store did not make is refused without reading', async () => {
    const keys = new Set(Array.from({ length: 100 }, () => store.reserveKey()));
    expect(keys.size).toBe(100);
    const { stream, counter } = countingSource(1000);
    await expect(store.stage(stream, { maxBytes: 1000, key: '../../etc/passwd' })).rejects.toBeInstanceOf(
      InvalidBlobKeyError,
    );
    expect(counter.pulled).toBe(0);
    expect(filesUnder(root)).toEqual([]);
  });
});

describe('keys', () => {
  it('are 256 random bits, never derived from anything the client sent', async () => {
    const userish = '../../etc/passwd';
    const keys = new Set<string>();
    for (let i = 0; i < 100; i++) {
      // Whatever name-like properties a source carries (multipart file streams have some).
      const source = Object.assign(Readable.from([Buffer.from('same bytes')]), {
        filename: userish,
        path: userish,
      });
      const staged = await store.stage(source, { maxBytes: 100 });
      keys.add(staged.key);
      expect(staged.key).toMatch(blobKeyPattern);
      expect(Buffer.from(staged.key, 'base64url')).toHaveLength(32);
      await staged.commit();
    }
    expect(keys.size).toBe(100);
    // The same bytes do not give the same key either: keys are not content addresses.
    expect(new Set([...keys].map((key) => key.slice(0, 8))).size).toBeGreaterThan(90);
    const files = filesUnder(root);
    expect(files).toHaveLength(100);
    for (const file of files) {
      const [folder, name, ...rest] = file.split(/[\\/]/);
      expect(rest).toEqual([]);
      expect(keys.has(name!)).toBe(true);
      expect(folder).toBe(name!.slice(0, 2));
    }
  });

  it('refuses keys that could reach outside the store, and touches nothing', async () => {
    const outside = join(root, '..', `${randomBytes(8).toString('hex')}-sentinel`);
    writeFileSync(outside, 'must survive');
    const staged = await store.stage(Readable.from([Buffer.from('staged')]), { maxBytes: 10 });
    const valid = randomBytes(32).toString('base64url');
    try {
      const hostile = [
        '',
        '..',
        '../../etc/passwd',
        `../${outside.split(/[\\/]/).pop()!}`,
        `tmp/${staged.key}`,
        `${valid.slice(0, 40)}/..`,
        `${valid.slice(0, 42)}/`,
        `${valid.slice(0, 42)}.`,
        `${valid}\n`,
        `${valid}a`,
        valid.slice(0, 42),
        `${valid.slice(0, 41)}%2`,
        `${valid.slice(0, 42)}é`,
        `${valid.slice(0, 42)}\0`,
        '/etc/passwd'.padEnd(43, 'a'),
      ];
      for (const key of hostile) {
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

describe('concurrency (U12)', () => {
  it('stages and commits 50 uploads at once, each reading back identical', async () => {
    const files = Array.from({ length: 50 }, (_, i) => randomBytes(50_000 + i * 20_000));
    const keys = await Promise.all(
      files.map(async (bytes) => {
        const staged = await store.stage(chunked(bytes, 1 + Math.floor(bytes.length / 16_384)), {
          maxBytes: 2 * 1024 * 1024,
        });
        expect(staged.sha256).toBe(sha256(bytes));
        await staged.commit();
        return staged.key;
      }),
    );
    expect(new Set(keys).size).toBe(50);
    const read = await Promise.all(keys.map((key) => readKey(key)));
    read.forEach((bytes, i) => expect(sha256(bytes)).toBe(sha256(files[i]!)));
    expect(tmpFiles()).toEqual([]);
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
      const child = spawn(process.execPath, ['--import', 'tsx', script], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const reported = new Map<string, string>();
      let output = '';
      const enough = new Promise<void>((resolve, reject) => {
        child.on('exit', () => reject(new Error('the writer stopped by itself')));
        child.stdout.on('data', (data: Buffer) => {
          output += data.toString();
          const lines = output.split('\n');
          output = lines.pop()!;
          for (const line of lines) {
            const [key, hash] = line.split(' ');
            reported.set(key!, hash!);
          }
          if (reported.size >= 8) resolve();
        });
      });
      await enough;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;

      // Every key the process reported as committed is complete; every file under a key is whole.
      for (const [key, hash] of reported) expect(sha256(await readKey(key))).toBe(hash);
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
