import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { type BlobStore, BlobTooLargeError, type StagedBlob } from './blob-store';

/** 256 random bits, base64url; the first two characters fan files out over folders. */
const keyPattern = /^[A-Za-z0-9_-]{43}$/;
export const headBytes = 64 * 1024;

function assertKey(key: string) {
  if (!keyPattern.test(key)) throw new Error('invalid blob key');
}

async function fsyncPath(path: string) {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Files under `root/<k0k1>/<key>`, staged in `root/tmp` on the same filesystem: write, fsync,
 * rename, fsync the folder. A crash never leaves a half-written file under a live key.
 */
export function createFsBlobStore(root: string): BlobStore {
  const tmpDir = join(root, 'tmp');
  const pathOf = (key: string) => join(root, key.slice(0, 2), key);
  const ready = mkdir(tmpDir, { recursive: true });

  async function stage(source: Readable, { maxBytes }: { maxBytes: number }): Promise<StagedBlob> {
    await ready;
    const key = randomBytes(32).toString('base64url');
    const tmpPath = join(tmpDir, key);
    const hash = createHash('sha256');
    const headChunks: Buffer[] = [];
    let headLength = 0;
    let size = 0;
    const out = createWriteStream(tmpPath, { flags: 'wx' });
    try {
      for await (const chunk of source as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          // Stop reading now: the rest of the upload is never pulled from the client.
          source.destroy();
          throw new BlobTooLargeError(maxBytes);
        }
        hash.update(chunk);
        if (headLength < headBytes) {
          headChunks.push(chunk.subarray(0, headBytes - headLength));
          headLength += Math.min(chunk.length, headBytes - headLength);
        }
        if (!out.write(chunk)) await new Promise<void>((resolve) => out.once('drain', resolve));
      }
      // A multipart file stream cut at its size limit ends "normally" but says so.
      if ((source as Readable & { truncated?: boolean }).truncated) throw new BlobTooLargeError(maxBytes);
      out.end();
      await finished(out);
      await fsyncPath(tmpPath);
    } catch (error) {
      out.destroy();
      await rm(tmpPath, { force: true });
      throw error;
    }

    let state: 'staged' | 'committed' | 'discarded' = 'staged';
    return {
      key,
      size,
      sha256: hash.digest('hex'),
      head: Buffer.concat(headChunks),
      async commit() {
        if (state !== 'staged') throw new Error(`blob already ${state}`);
        const target = pathOf(key);
        await mkdir(join(root, key.slice(0, 2)), { recursive: true });
        await rename(tmpPath, target);
        await fsyncPath(join(root, key.slice(0, 2)));
        state = 'committed';
      },
      async discard() {
        if (state !== 'staged') return;
        state = 'discarded';
        await rm(tmpPath, { force: true });
      },
    };
  }

  return {
    stage,
    async open(key, range) {
      assertKey(key);
      const path = pathOf(key);
      try {
        await stat(path);
      } catch {
        return undefined;
      }
      return createReadStream(path, range ? { start: range.start, end: range.end } : {});
    },
    async delete(key) {
      assertKey(key);
      await rm(pathOf(key), { force: true });
    },
    async removeTemporaryLeftovers() {
      await ready;
      const names = await readdir(tmpDir);
      await Promise.all(names.map((name) => rm(join(tmpDir, name), { force: true, recursive: true })));
      return names.length;
    },
    async *keys() {
      await ready;
      for (const folder of await readdir(root)) {
        if (folder === 'tmp') continue;
        for (const name of await readdir(join(root, folder)).catch(() => [])) {
          if (keyPattern.test(name)) yield name;
        }
      }
    },
  };
}
