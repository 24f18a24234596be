import { createHash, randomBytes } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type BlobStore,
  BlobTooLargeError,
  InvalidBlobKeyError,
  type StagedBlob,
  StagedBlobSettledError,
} from './blob-store';
import { blobKeyPattern, defaultHeadBytes } from './blob-intake';
import { chunked, countingSource, type StoreUnderTest, storesUnderTest } from '../testing/blob-stores';

/**
 * The BlobStore contract, held by every store: the local disk and an S3 bucket (the tests' s3rver).
 * What only one store promises (temporary files, fsync, multipart uploads) is in its own tests.
 */

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe.each(storesUnderTest)('$kind blob store', ({ open: openStore }) => {
  let medium: StoreUnderTest;
  let store: BlobStore;
  beforeEach(async () => {
    medium = await openStore();
    store = medium.store;
  });
  afterEach(() => medium.close());

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

  async function listKeys(from = store, options?: Parameters<BlobStore['keys']>[0]) {
    const keys: string[] = [];
    for await (const key of from.keys(options)) keys.push(key);
    return keys.sort();
  }

  describe('stage and commit', () => {
    it('streams multi-megabyte input and reads back the identical bytes', async () => {
      const bytes = randomBytes(7 * 1024 * 1024 + 17);
      const staged = await store.stage(chunked(bytes, 200), { maxBytes: 10 * 1024 * 1024 });

      expect(staged.size).toBe(bytes.length);
      expect(staged.sha256).toBe(sha256(bytes));
      expect(staged.head.length).toBe(defaultHeadBytes);
      expect(staged.head.equals(bytes.subarray(0, defaultHeadBytes))).toBe(true);
      expect(staged.key).toMatch(blobKeyPattern);

      await staged.commit();
      expect(await medium.traces()).toHaveLength(1);
      expect(await store.size(staged.key)).toBe(bytes.length);
      const back = await readKey(staged.key);
      expect(sha256(back)).toBe(sha256(bytes));
      expect(back.equals(bytes)).toBe(true);
    });

    it('keeps all of a short file as head', async () => {
      const bytes = randomBytes(10);
      const short = await store.stage(Readable.from([bytes]), { maxBytes: 100 });
      expect(short.head.equals(bytes)).toBe(true);
      await short.discard();
    });

    it('stages an empty file', async () => {
      const staged = await store.stage(Readable.from([]), { maxBytes: 10 });
      expect(staged.size).toBe(0);
      expect(staged.sha256).toBe(sha256(Buffer.alloc(0)));
      expect(staged.head.length).toBe(0);
      await staged.commit();
      expect((await readKey(staged.key)).length).toBe(0);
      expect(await store.size(staged.key)).toBe(0);
    });

    it('refuses text streams, whose chunks are no longer the bytes of the file', async () => {
      const source = Readable.from(['some text']);
      await expect(store.stage(source, { maxBytes: 100 })).rejects.toThrow(TypeError);
      expect(await medium.traces()).toEqual([]);
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

    it('refuses one byte more, keeping nothing', async () => {
      const bytes = randomBytes(100_001);
      for (const source of [Readable.from([bytes]), chunked(bytes, 37)]) {
        const error = await store.stage(source, { maxBytes: 100_000 }).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BlobTooLargeError);
        expect((error as BlobTooLargeError).maxBytes).toBe(100_000);
        expect(source.destroyed).toBe(true);
      }
      expect(await medium.traces()).toEqual([]);
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
      expect(await medium.traces()).toEqual([]);
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
      expect(await medium.traces()).toEqual([]);
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
      expect(await medium.traces()).toEqual([]);
    });

    it('rejects when the source is destroyed without an error', async () => {
      const source = new Readable({ read() {} });
      source.push(Buffer.alloc(1000));
      const staging = store.stage(source, { maxBytes: 100_000 });
      setTimeout(() => source.destroy(), 10);
      await expect(staging).rejects.toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
      expect(await medium.traces()).toEqual([]);
    });

    it('keeps nothing when an HTTP client disconnects halfway', async () => {
      let staging: Promise<StagedBlob> | undefined;
      let received: { bytesRead: number } | undefined;
      const server = createServer((req) => {
        received = req.socket;
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
        // Wait until the server is reading the upload, then vanish.
        await expect.poll(() => (received?.bytesRead ?? 0) > 512 * 1024).toBe(true);
        client.destroy();
        await expect(staging).rejects.toThrow();
        expect(await medium.traces()).toEqual([]);
      } finally {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('discards staged bytes, and discarding twice is harmless', async () => {
      const staged = await store.stage(Readable.from([randomBytes(5000)]), { maxBytes: 10_000 });
      await staged.discard();
      await staged.discard();
      expect(await medium.traces()).toEqual([]);
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

    it('keeps the committed bytes when a discard meets a commit', async () => {
      const staged = await store.stage(Readable.from([Buffer.from('kept')]), { maxBytes: 10 });
      await Promise.all([staged.commit(), staged.discard()]);
      expect((await readKey(staged.key)).toString()).toBe('kept');
      expect(await medium.traces()).toHaveLength(1);
    });
  });

  describe('reading', () => {
    it('reads inclusive byte ranges', async () => {
      const bytes = randomBytes(300_000);
      const key = await commitBytes(bytes);
      expect((await readKey(key, { start: 0, end: 0 })).equals(bytes.subarray(0, 1))).toBe(true);
      expect((await readKey(key, { start: 2, end: 5 })).equals(bytes.subarray(2, 6))).toBe(true);
      expect((await readKey(key, { start: 100_000, end: 299_999 })).equals(bytes.subarray(100_000))).toBe(
        true,
      );
      expect((await readKey(key, { start: 299_999, end: 299_999 })).equals(bytes.subarray(299_999))).toBe(
        true,
      );
      // Past the end: what there is, the way a file read behaves; nothing when it starts past it.
      expect((await readKey(key, { start: 299_990, end: 400_000 })).equals(bytes.subarray(299_990))).toBe(
        true,
      );
      expect((await readKey(key, { start: 300_000, end: 400_000 })).length).toBe(0);
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
      expect(await store.open(absent, { start: 0, end: 10 })).toBeUndefined();
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
      expect(await medium.traces()).toEqual([]);
    });
  });

  describe('reserved keys (pending thumbnails)', () => {
    it('hold nothing until bytes are stored under them, then read back like any key', async () => {
      const key = store.reserveKey();
      expect(key).toMatch(blobKeyPattern);
      expect(await store.open(key)).toBeUndefined();
      const staged = await store.stage(Readable.from([Buffer.from('later bytes')]), { maxBytes: 100, key });
      expect(staged.key).toBe(key);
      await staged.commit();
      expect((await readKey(key)).toString()).toBe('later bytes');
      expect(await listKeys()).toEqual([key]);
      expect(await medium.traces()).toHaveLength(1);
    });

    it('replace what a key held when committed again (a copy left by a crash)', async () => {
      const key = store.reserveKey();
      await (await store.stage(Readable.from([Buffer.from('first')]), { maxBytes: 100, key })).commit();
      const second = await store.stage(Readable.from([Buffer.from('second')]), { maxBytes: 100, key });
      await second.commit();
      expect((await readKey(key)).toString()).toBe('second');
      expect(await medium.traces()).toHaveLength(1);
    });

    it('are never handed out twice, and a key the store did not make is refused without reading', async () => {
      const keys = new Set(Array.from({ length: 100 }, () => store.reserveKey()));
      expect(keys.size).toBe(100);
      const { stream, counter } = countingSource(1000);
      await expect(store.stage(stream, { maxBytes: 1000, key: '../../etc/passwd' })).rejects.toBeInstanceOf(
        InvalidBlobKeyError,
      );
      expect(counter.pulled).toBe(0);
      expect(await medium.traces()).toEqual([]);
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
      expect(await listKeys()).toEqual([...keys].sort());
      expect(await medium.traces()).toHaveLength(100);
    });

    it('refuses keys that could reach outside the store, and touches nothing', async () => {
      const kept = await commitBytes(Buffer.from('must survive'));
      const valid = randomBytes(32).toString('base64url');
      const hostile = [
        '',
        '..',
        '../../etc/passwd',
        `../${kept}`,
        `tmp/${kept}`,
        `blobs/${kept}`,
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
      expect((await readKey(kept)).toString()).toBe('must survive');
      expect(await medium.traces()).toHaveLength(1);
    });

    it('lists exactly the committed keys, to this store and to another on the same medium', async () => {
      const committed = [await commitBytes(Buffer.from('one')), await commitBytes(Buffer.from('two'))];
      const gone = await commitBytes(Buffer.from('deleted'));
      await store.delete(gone);
      const discarded = await store.stage(Readable.from([Buffer.from('staged')]), { maxBytes: 10 });
      await discarded.discard();
      expect(await listKeys()).toEqual([...committed].sort());
      expect(await listKeys(medium.reopen())).toEqual([...committed].sort());
    });

    it('lists only the keys stored before a time, when asked', async () => {
      const committed = [await commitBytes(Buffer.from('one')), await commitBytes(Buffer.from('two'))];
      // Clocks of a bucket and of the platform may differ by seconds: a minute either side is clear.
      expect(await listKeys(store, { startedBefore: new Date(Date.now() + 60_000) })).toEqual(
        committed.sort(),
      );
      expect(await listKeys(store, { startedBefore: new Date(Date.now() - 60_000) })).toEqual([]);
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
      expect(await medium.traces()).toHaveLength(50);
    });
  });
});
