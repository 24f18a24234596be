import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newBlobKey } from '../storage/blob-intake';
import { bucketContents, filesUnder } from '../testing/blob-stores';
import { s3TestEnv, testS3Client } from '../testing/s3';
import { createRenditionCache, type RenditionCache } from './rendition-cache';
import { createS3RenditionCache } from './s3-rendition-cache';

/** A cache under test, and a way to leave something where an older generation would have. */
interface CacheUnderTest {
  cache: RenditionCache;
  /** Puts bytes under a path of the medium (relative to the cache's root), as another version would. */
  plant(path: string): Promise<void>;
  traces(): Promise<string[]>;
  close(): Promise<void>;
}

const caches = [
  {
    kind: 'fs',
    open: async (): Promise<CacheUnderTest> => {
      const root = mkdtempSync(join(tmpdir(), 'renditions-'));
      return {
        cache: createRenditionCache(root),
        plant: async (path) => {
          mkdirSync(join(root, path, '..'), { recursive: true });
          writeFileSync(join(root, path), 'old');
        },
        traces: async () => filesUnder(root),
        close: async () => rmSync(root, { recursive: true, force: true }),
      };
    },
  },
  {
    kind: 's3',
    open: async (): Promise<CacheUnderTest> => {
      const bucket = (await s3TestEnv()).S3_BUCKET!;
      const client = testS3Client();
      return {
        cache: createS3RenditionCache(client, bucket),
        plant: async (path) => {
          await client.send(
            new PutObjectCommand({ Bucket: bucket, Key: `renditions/${path}`, Body: Buffer.from('old') }),
          );
        },
        traces: async () => (await bucketContents(client, bucket)).objects.sort(),
        close: async () => client.destroy(),
      };
    },
  },
] as const;

describe.each(caches)('$kind rendition cache', ({ open }) => {
  let medium: CacheUnderTest;
  let cache: RenditionCache;
  beforeEach(async () => {
    medium = await open();
    cache = medium.cache;
  });
  afterEach(() => medium.close());

  async function read(blobKey: string, name: string, range?: { start: number; end: number }) {
    const file = await cache.open(blobKey, name);
    if (!file) return undefined;
    const stream = await file.stream(range);
    return { size: file.size, bytes: stream && (await buffer(stream)) };
  }

  /** What the start-up sweep sees, in a stable order. */
  async function originals() {
    const found: { blobKey: string; names: string[] }[] = [];
    for await (const { blobKey, names } of cache.originals()) found.push({ blobKey, names: names.sort() });
    return found.sort((a, b) => (a.blobKey < b.blobKey ? -1 : 1));
  }

  it('serves what was written, whole or by range, and nothing it did not write', async () => {
    const key = newBlobKey();
    const bytes = randomBytes(50_000);
    expect(await cache.open(key, 'preview-w160')).toBeUndefined();
    expect(await cache.has(key, 'preview-w160')).toBe(false);

    await cache.write(key, 'preview-w160', bytes);
    expect(await cache.has(key, 'preview-w160')).toBe(true);
    expect(await read(key, 'preview-w160')).toEqual({ size: 50_000, bytes });
    expect(await read(key, 'preview-w160', { start: 100, end: 199 })).toEqual({
      size: 50_000,
      bytes: bytes.subarray(100, 200),
    });
    expect(await cache.open(key, 'preview-w320')).toBeUndefined();
    expect(await cache.open(newBlobKey(), 'preview-w160')).toBeUndefined();

    // Opened and let go without a body (HEAD, 416).
    const file = await cache.open(key, 'preview-w160');
    await file!.close();
    // Written again (another render of the same rendition): the new bytes.
    await cache.write(key, 'preview-w160', bytes.subarray(0, 10));
    expect(await read(key, 'preview-w160')).toEqual({ size: 10, bytes: bytes.subarray(0, 10) });
  });

  it('refuses names that could leave its folders', async () => {
    for (const [key, name] of [
      ['../x', 'preview-w160'],
      [newBlobKey(), '../../blobs/x'],
      [newBlobKey(), 'a/b'],
    ] as const) {
      await expect(cache.write(key, name, Buffer.from('x'))).rejects.toThrow(/invalid/);
      await expect(cache.open(key, name)).rejects.toThrow(/invalid/);
    }
    expect(await medium.traces()).toEqual([]);
  });

  it('lists, and removes all or some renditions of an original', async () => {
    const [one, two] = [newBlobKey(), newBlobKey()];
    for (const name of ['preview-w160', 'cropped-c0_0_50_50-full', 'cropped-c1_1_9_9-full']) {
      await cache.write(one, name, Buffer.from(name));
    }
    await cache.write(two, 'preview-w160', Buffer.from('two'));
    expect(await originals()).toEqual(
      [
        { blobKey: one, names: ['cropped-c0_0_50_50-full', 'cropped-c1_1_9_9-full', 'preview-w160'] },
        { blobKey: two, names: ['preview-w160'] },
      ].sort((a, b) => (a.blobKey < b.blobKey ? -1 : 1)),
    );
    expect((await cache.names(one)).sort()).toEqual([
      'cropped-c0_0_50_50-full',
      'cropped-c1_1_9_9-full',
      'preview-w160',
    ]);

    expect(await cache.removeWhere(one, (name) => name.startsWith('cropped-c1'))).toBe(1);
    expect((await cache.names(one)).sort()).toEqual(['cropped-c0_0_50_50-full', 'preview-w160']);
    await cache.removeAll(one);
    expect(await cache.names(one)).toEqual([]);
    expect(await originals()).toEqual([{ blobKey: two, names: ['preview-w160'] }]);
    await cache.removeAll(one);
    expect(await read(two, 'preview-w160')).toEqual({ size: 3, bytes: Buffer.from('two') });
  });

  it('removes older generations at start and keeps the current one', async () => {
    const key = newBlobKey();
    await cache.write(key, 'preview-w160', Buffer.from('current'));
    await medium.plant(`v0/${key}/preview-w160.webp`);
    await medium.plant(`v0/${newBlobKey()}/preview-w320.webp`);
    expect(await cache.removeLeftovers()).toBeGreaterThanOrEqual(1);
    expect(await cache.removeLeftovers()).toBe(0);
    // Nothing left in a folder named v0 (a random blob key may hold the letters "v0" itself).
    expect((await medium.traces()).filter((trace) => trace.split('/').includes('v0'))).toEqual([]);
    expect(await read(key, 'preview-w160')).toEqual({ size: 7, bytes: Buffer.from('current') });
  });
});

// The disk cache remembers the sizes it wrote or measured, so that a cached rendition is sent
// without a `stat`: what it remembers must never outlive the file it was measured on.
describe('the disk rendition cache’s remembered sizes', () => {
  const key = 'k'.repeat(43);
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rendition-cache-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** The size `open` reports and the bytes a full read of the opened file gives. */
  async function opened(cache: RenditionCache, name: string) {
    const file = await cache.open(key, name);
    if (!file) return undefined;
    try {
      return { size: file.size, bytes: await buffer((await file.stream())!) };
    } finally {
      await file.close();
    }
  }

  it('reports the size of what it wrote, and of files it finds after a restart', async () => {
    const cache = createRenditionCache(dir);
    await cache.write(key, 'preview-w320', Buffer.alloc(1234, 1));
    expect(await opened(cache, 'preview-w320')).toEqual({ size: 1234, bytes: Buffer.alloc(1234, 1) });

    const restarted = createRenditionCache(dir);
    expect((await opened(restarted, 'preview-w320'))?.size).toBe(1234);
    // Measured once, then known: the same answer on the next open.
    expect((await opened(restarted, 'preview-w320'))?.size).toBe(1234);
  });

  it('never reports the size of a removed file for the file written next under its name', async () => {
    const cache = createRenditionCache(dir);
    await cache.write(key, 'cropped-c0_0_10_10-full', Buffer.alloc(500, 2));
    await cache.write(key, 'preview-w160', Buffer.alloc(300, 3));
    expect((await opened(cache, 'cropped-c0_0_10_10-full'))?.size).toBe(500);
    expect((await opened(cache, 'preview-w160'))?.size).toBe(300);

    await cache.removeWhere(key, (name) => name.startsWith('cropped-'));
    expect(await opened(cache, 'cropped-c0_0_10_10-full')).toBeUndefined();
    // Put back from outside this cache's knowledge (another process sharing the folder).
    const folder = join(dir, 'v1', key);
    writeFileSync(join(folder, 'cropped-c0_0_10_10-full.webp'), Buffer.alloc(700, 4));
    expect(await opened(cache, 'cropped-c0_0_10_10-full')).toEqual({
      size: 700,
      bytes: Buffer.alloc(700, 4),
    });

    await cache.removeAll(key);
    expect(await opened(cache, 'preview-w160')).toBeUndefined();
    await cache.write(key, 'preview-w160', Buffer.alloc(900, 5));
    expect(await opened(cache, 'preview-w160')).toEqual({ size: 900, bytes: Buffer.alloc(900, 5) });
  });
});
