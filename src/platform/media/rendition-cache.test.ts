import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRenditionCache } from './rendition-cache';

const key = 'k'.repeat(43);

/** The size `open` reports and the bytes a full read of the opened file gives. */
async function opened(cache: ReturnType<typeof createRenditionCache>, name: string) {
  const file = await cache.open(key, name);
  if (!file) return undefined;
  try {
    return { size: file.size, bytes: await file.handle.readFile() };
  } finally {
    await file.handle.close();
  }
}

describe('the rendition cache', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rendition-cache-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

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
