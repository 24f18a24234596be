import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobTooLargeError, type BlobStore } from './blob-store';
import { createFsBlobStore } from './fs-blob-store';

let root: string;
let store: BlobStore;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'blobs-'));
  store = createFsBlobStore(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

/** A source of `total` bytes in 64 KB chunks that counts how much was pulled from it. */
function countingSource(total: number) {
  const counter = { pulled: 0 };
  const chunk = Buffer.alloc(64 * 1024, 7);
  const stream = new Readable({
    read() {
      if (counter.pulled >= total) return void this.push(null);
      counter.pulled += chunk.length;
      this.push(chunk);
    },
  });
  return { stream, counter };
}

const everything = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? everything(join(dir, e.name)) : [e.name],
  );

describe('filesystem blob store', () => {
  it('stages, hashes and commits the exact bytes under an opaque key', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const chunks = Array.from({ length: 50 }, (_, i) =>
      bytes.subarray(Math.floor((i * bytes.length) / 50), Math.floor(((i + 1) * bytes.length) / 50)),
    );
    const staged = await store.stage(Readable.from(chunks), { maxBytes: bytes.length });
    expect(staged.size).toBe(bytes.length);
    expect(staged.sha256).toBe(createHash('sha256').update(bytes).digest('hex'));
    expect(staged.head.equals(bytes.subarray(0, staged.head.length))).toBe(true);
    expect(staged.key).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await store.open(staged.key)).toBeUndefined();
    await staged.commit();
    const back = Buffer.concat(await (await store.open(staged.key))!.toArray());
    expect(back.equals(bytes)).toBe(true);
    await expect(staged.commit()).rejects.toThrow();
  });

  it('accepts exactly the limit and refuses one byte more, keeping nothing and reading no further', async () => {
    const exact = await store.stage(Readable.from([Buffer.alloc(1000)]), { maxBytes: 1000 });
    await exact.discard();
    await expect(store.stage(Readable.from([Buffer.alloc(1001)]), { maxBytes: 1000 })).rejects.toBeInstanceOf(
      BlobTooLargeError,
    );
    const { stream, counter } = countingSource(50 * 1024 * 1024);
    await expect(store.stage(stream, { maxBytes: 1024 * 1024 })).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(counter.pulled).toBeLessThan(4 * 1024 * 1024);
    expect(everything(root)).toEqual([]);
  });

  it('keeps nothing when the source fails midway', async () => {
    const source = new Readable({
      read() {
        this.push(Buffer.alloc(100_000));
        this.destroy(new Error('client went away'));
      },
    });
    await expect(store.stage(source, { maxBytes: 10_000_000 })).rejects.toThrow('client went away');
    expect(everything(root)).toEqual([]);
  });

  it('discards, reads ranges, and deletes idempotently', async () => {
    const staged = await store.stage(Readable.from([Buffer.from('0123456789')]), { maxBytes: 100 });
    await staged.commit();
    expect(await text((await store.open(staged.key, { start: 2, end: 5 }))!)).toBe('2345');
    await store.delete(staged.key);
    await store.delete(staged.key);
    expect(await store.open(staged.key)).toBeUndefined();
    const thrown = await store.stage(Readable.from([Buffer.from('x')]), { maxBytes: 100 });
    await thrown.discard();
    expect(everything(root)).toEqual([]);
  });

  it('refuses keys that could reach outside its folder', async () => {
    for (const key of ['../../etc/passwd', 'tmp/x', '', 'a'.repeat(42) + '/']) {
      await expect(store.open(key)).rejects.toThrow('invalid blob key');
      await expect(store.delete(key)).rejects.toThrow('invalid blob key');
    }
  });

  it('removes staging leftovers at start and lists committed keys', async () => {
    const kept = await store.stage(Readable.from([Buffer.from('keep')]), { maxBytes: 100 });
    await kept.commit();
    writeFileSync(join(root, 'tmp', 'crashed-upload'), 'half');
    expect(await store.removeTemporaryLeftovers()).toBe(1);
    const keys: string[] = [];
    for await (const key of store.keys()) keys.push(key);
    expect(keys).toEqual([kept.key]);
  });
});
