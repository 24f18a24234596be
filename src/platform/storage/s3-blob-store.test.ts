import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buffer } from 'node:stream/consumers';
import { fileURLToPath } from 'node:url';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import pLimit from 'p-limit';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BlobTooLargeError, type StagedBlob } from './blob-store';
import { newBlobKey } from './blob-intake';
import { blobPrefix } from './s3-blob-store';
import { countingSource, s3StoreUnderTest, startBlobWriter } from '../testing/blob-stores';
import { testS3ClientConfig } from '../testing/s3';

/** What only the S3 store promises: multipart uploads that never outlive a failure, paging, memory. */

let medium: Awaited<ReturnType<typeof s3StoreUnderTest>>;
beforeEach(async () => {
  medium = await s3StoreUnderTest();
});
afterEach(() => medium.close());

const MB = 1024 * 1024;

/** A full garbage collection, without starting node with --expose-gc. */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

describe('multipart uploads', () => {
  it('stops a file over the limit early, aborting its multipart upload: no object, no upload left', async () => {
    // Past 5 MB lib-storage has a multipart upload going, with parts sent.
    const { stream, counter } = countingSource(50 * MB);
    const error = await medium.store.stage(stream, { maxBytes: 12 * MB }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BlobTooLargeError);
    expect(counter.pulled).toBeLessThanOrEqual(12 * MB + 4 * 64 * 1024);
    expect(stream.destroyed).toBe(true);
    expect(await medium.traces()).toEqual([]);
  });

  it('aborts the multipart upload of a client that disconnects halfway', async () => {
    let staging: Promise<StagedBlob> | undefined;
    const server = createServer((req) => {
      staging = medium.store.stage(req, { maxBytes: 100 * MB });
      staging.catch(() => {});
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const client = request({
        port,
        host: '127.0.0.1',
        method: 'POST',
        headers: { 'content-length': String(30 * MB) },
      });
      client.on('error', () => {});
      client.write(randomBytes(12 * MB));
      // The upload is under way in the bucket, its first part sent or being sent: then vanish.
      await expect
        .poll(async () => (await medium.traces()).some((trace) => trace.startsWith('upload:')))
        .toBe(true);
      client.destroy();
      await expect(staging).rejects.toThrow();
      expect(await medium.traces()).toEqual([]);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('keeps memory flat while a 100 MB upload streams through', async () => {
    const size = 100 * MB;
    const chunkSize = 64 * 1024;
    const expected = createHash('sha256');
    let made = 0;
    // Fresh chunks, the way a socket hands them over (a reused buffer would hide copies kept).
    const source = new Readable({
      read() {
        if (made >= size) return void this.push(null);
        const chunk = Buffer.alloc(chunkSize, made / chunkSize);
        expected.update(chunk);
        made += chunkSize;
        this.push(chunk);
      },
    });
    // What the process holds, not what it has yet to collect: measured after a full collection.
    const live = () => {
      collectGarbage();
      const { heapUsed, arrayBuffers } = process.memoryUsage();
      return heapUsed + arrayBuffers;
    };
    const before = live();
    let peak = before;
    const sampler = setInterval(() => {
      peak = Math.max(peak, live());
    }, 25);
    try {
      const staged = await medium.store.stage(source, { maxBytes: size });
      await staged.commit();
      expect(staged.size).toBe(size);
      expect(staged.sha256).toBe(expected.digest('hex'));
      expect(await medium.store.size(staged.key)).toBe(size);
    } finally {
      clearInterval(sampler);
    }
    // Parts of 5 MB, two in the air and one filling (lib-storage concatenates each part, and its
    // rest keeps the previous one alive): 27-37 MB measured here. Keeping the file would take 100.
    expect(peak - before).toBeLessThan(50 * MB);
  }, 180_000);
});

describe('a process killed mid-upload', () => {
  it('never shows a partial object under a key, and leaves only unfinished uploads for the sweep', async () => {
    const size = 6 * MB;
    const dir = mkdtempSync(join(tmpdir(), 's3-writer-'));
    const script = join(dir, 'writer.mts');
    const storeModule = fileURLToPath(new URL('./s3-blob-store.ts', import.meta.url));
    const clientModule = fileURLToPath(new URL('./s3-client.ts', import.meta.url));
    const { endpoint, region, credentials, forcePathStyle } = testS3ClientConfig();
    const config = { kind: 's3', endpoint, region, credentials, forcePathStyle, bucket: medium.bucket };
    writeFileSync(
      script,
      `import { randomBytes, createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { createS3BlobStore } from ${JSON.stringify(storeModule)};
import { createS3Client } from ${JSON.stringify(clientModule)};
const client = createS3Client(${JSON.stringify(config)});
const store = createS3BlobStore(client, ${JSON.stringify(medium.bucket)});
// The first part quickly, the rest slowly: most of the time a multipart upload is open.
async function* slow(bytes) {
  yield bytes.subarray(0, 5.5 * 1024 * 1024);
  for (let i = 5.5 * 1024 * 1024; i < bytes.length; i += 65536) { yield bytes.subarray(i, i + 65536); await sleep(20); }
}
async function loop() {
  for (;;) {
    const bytes = randomBytes(${size});
    const staged = await store.stage(Readable.from(slow(bytes)), { maxBytes: ${size} });
    await staged.commit();
    process.stdout.write(staged.key + ' ' + createHash('sha256').update(bytes).digest('hex') + '\\n');
  }
}
for (let i = 0; i < 3; i++) void loop();
`,
    );
    try {
      const writer = await startBlobWriter(script, 4);
      // Once a multipart upload is open, so that the kill interrupts one.
      await expect
        .poll(async () => (await medium.traces()).some((trace) => trace.startsWith('upload:')))
        .toBe(true);
      await writer.kill();

      // Every key the process reported is complete; every object under a key is whole.
      for (const [key, hash] of writer.reported) {
        const bytes = await buffer((await medium.store.open(key))!);
        expect(createHash('sha256').update(bytes).digest('hex')).toBe(hash);
      }
      for await (const key of medium.store.keys()) expect(await medium.store.size(key)).toBe(size);
      // The uploads in flight are unfinished multipart uploads, which the sweep aborts.
      const later = new Date(Date.now() + 60_000);
      expect(await medium.store.removeTemporaryLeftovers({ startedBefore: later })).toBeGreaterThanOrEqual(1);
      expect((await medium.traces()).filter((trace) => trace.startsWith('upload:'))).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // A node process of its own, loading tsx and the SDK: seconds on a busy machine.
  }, 120_000);
});

describe('listing', () => {
  it('pages through more than 1 000 keys', async () => {
    const count = 1_005;
    const keys = Array.from({ length: count }, () => newBlobKey());
    const limit = pLimit(16);
    await Promise.all(
      keys.map((key) =>
        limit(() =>
          medium.client.send(
            new PutObjectCommand({ Bucket: medium.bucket, Key: blobPrefix + key, Body: Buffer.from(key) }),
          ),
        ),
      ),
    );
    // Objects of others in the bucket (the renditions' prefix, strangers) are not keys.
    await medium.client.send(
      new PutObjectCommand({
        Bucket: medium.bucket,
        Key: `renditions/v1/${keys[0]}/x.webp`,
        Body: Buffer.from('x'),
      }),
    );
    await medium.client.send(
      new PutObjectCommand({ Bucket: medium.bucket, Key: `${blobPrefix}notes.txt`, Body: Buffer.from('x') }),
    );
    const listed: string[] = [];
    for await (const key of medium.store.keys()) listed.push(key);
    expect(listed.sort()).toEqual(keys.sort());
  }, 120_000);
});
