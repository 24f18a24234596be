import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Readable } from 'node:stream';
import {
  CreateMultipartUploadCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { BlobStore } from '../storage/blob-store';
import { createFsBlobStore } from '../storage/fs-blob-store';
import { blobPrefix, createS3BlobStore } from '../storage/s3-blob-store';
import { newBlobKey } from '../storage/blob-intake';
import { s3TestEnv, testS3Client } from './s3';

/** `bytes` as a stream of `count` chunks of uneven sizes, the way a socket delivers them. */
export function chunked(bytes: Buffer, count: number) {
  const cuts = [
    0,
    ...Array.from({ length: count - 1 }, () => Math.floor(Math.random() * bytes.length)),
    bytes.length,
  ];
  cuts.sort((a, b) => a - b);
  return Readable.from(cuts.slice(1).map((end, i) => bytes.subarray(cuts[i], end)));
}

/** A generated source of `total` bytes that counts what was pulled from it. */
export function countingSource(total: number, chunkSize = 64 * 1024) {
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

/** A store under test, and a view of everything it left in its medium. */
export interface StoreUnderTest {
  store: BlobStore;
  /** Another store on the same medium: the same process after a restart, or another instance. */
  reopen(): BlobStore;
  /**
   * Every trace in the medium, committed or not: files (temporary ones too) under the root; objects
   * in the bucket and its unfinished multipart uploads (`upload:<key>`).
   */
  traces(): Promise<string[]>;
  /** What a process killed mid-upload leaves: a temporary file; an unfinished multipart upload. */
  leaveUnfinishedUpload(): Promise<void>;
  close(): Promise<void>;
}

/** Every file under `dir`, relative to it. */
export const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((entry) => !entry.isDirectory())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
    .sort();

export function fsStoreUnderTest(): StoreUnderTest {
  const root = mkdtempSync(join(tmpdir(), 'blobs-'));
  return {
    store: createFsBlobStore(root),
    reopen: () => createFsBlobStore(root),
    traces: async () => filesUnder(root),
    leaveUnfinishedUpload: async () => {
      const store = createFsBlobStore(root);
      await store.stage(Readable.from([Buffer.from('never committed')]), { maxBytes: 100 });
    },
    close: async () => rmSync(root, { recursive: true, force: true }),
  };
}

/** Objects and unfinished multipart uploads of a bucket, all pages. */
export async function bucketContents(client: S3Client, bucket: string) {
  const objects: string[] = [];
  let ContinuationToken: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ Bucket: bucket, ContinuationToken }));
    for (const object of page.Contents ?? []) objects.push(object.Key!);
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
  const uploads = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket }));
  return { objects, uploads: (uploads.Uploads ?? []).map((upload) => upload.Key!) };
}

export async function s3StoreUnderTest(): Promise<StoreUnderTest & { client: S3Client; bucket: string }> {
  const bucket = (await s3TestEnv()).S3_BUCKET!;
  const client = testS3Client();
  return {
    client,
    bucket,
    store: createS3BlobStore(client, bucket),
    reopen: () => createS3BlobStore(client, bucket),
    traces: async () => {
      const { objects, uploads } = await bucketContents(client, bucket);
      return [...objects, ...uploads.map((key) => `upload:${key}`)].sort();
    },
    leaveUnfinishedUpload: async () => {
      const Key = `${blobPrefix}${newBlobKey()}`;
      const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key }));
      await client.send(
        new UploadPartCommand({
          Bucket: bucket,
          Key,
          UploadId,
          PartNumber: 1,
          Body: Buffer.alloc(5 * 1024 * 1024),
        }),
      );
    },
    close: async () => client.destroy(),
  };
}

export const storesUnderTest = [
  { kind: 'fs', open: async () => fsStoreUnderTest() },
  { kind: 's3', open: s3StoreUnderTest },
] as const;

/**
 * Runs `script` in a node process of its own: a writer that stages and commits blobs in a few loops
 * until it is killed, printing "<key> <sha256>" for each one committed. Resolves once `count` have
 * been reported, with what it has reported so far (and goes on filling it), and `kill` to SIGKILL
 * it in the middle of its next uploads.
 */
export async function startBlobWriter(script: string, count: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const reported = new Map<string, string>();
  let output = '';
  await new Promise<void>((resolve, reject) => {
    child.on('exit', () => reject(new Error('the writer stopped by itself')));
    child.stdout.on('data', (data: Buffer) => {
      output += data.toString();
      const lines = output.split('\n');
      output = lines.pop()!;
      for (const line of lines) {
        const [key, hash] = line.split(' ');
        reported.set(key!, hash!);
      }
      if (reported.size >= count) resolve();
    });
  });
  return {
    reported,
    async kill() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
