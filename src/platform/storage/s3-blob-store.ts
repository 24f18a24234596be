import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import {
  type BlobStore,
  BlobTooLargeError,
  InvalidBlobKeyError,
  type StagedBlob,
  StagedBlobSettledError,
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
import { isMissingObject, isUnsatisfiableRange, listPages, presignGet } from './s3-client';
import { outageOf } from '../http/backend-outages';

export interface S3BlobStoreOptions {
  /** How many leading bytes a StagedBlob keeps in `head`; at least `minimumHeadBytes`. */
  headBytes?: number;
}

/** Where blobs live in the bucket; renditions have a prefix of their own (media/rendition-cache.ts). */
export const blobPrefix = 'blobs/';

/**
 * Multipart parts of 5 MB (S3's minimum), two in the air at once: an upload holds about 15 MB
 * (the part being filled, two being sent) however large its file, and the client's own upload
 * speed, not the bucket's, is what limits it.
 */
const partSize = 5 * 1024 * 1024;
const queueSize = 2;

/** The first retry of an abort after this, each next one after twice as long, up to about 8 minutes in all. */
const firstAbortRetryMs = 1000;
const lastAbortRetryMs = 256_000;

/**
 * A multipart upload that failed because the bucket did (refused, reset, silent) could not be
 * aborted either: its parts are aborted here once the bucket answers again, tried with backoff in
 * the background (keys are never reused, so whatever upload is under this key is the failed one).
 * After the last try the sweep (sweep.ts) is left to find it.
 */
function abortUnfinishedLater(client: S3Client, bucket: string, Key: string, delayMs = 0) {
  const attempt = async () => {
    try {
      const page = await client.send(new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: Key }));
      for (const upload of page.Uploads ?? []) {
        if (upload.Key !== Key || !upload.UploadId) continue;
        await client.send(
          new AbortMultipartUploadCommand({ Bucket: bucket, Key, UploadId: upload.UploadId }),
        );
      }
    } catch {
      const next = Math.max(firstAbortRetryMs, delayMs * 2);
      if (next <= lastAbortRetryMs) abortUnfinishedLater(client, bucket, Key, next);
    }
  };
  setTimeout(() => void attempt(), delayMs).unref();
}

/**
 * Blobs as objects `blobs/<key>` of one bucket. S3 has no rename, and copying every upload once
 * more to "commit" it would double its cost, so `stage` streams the bytes straight under their key
 * (lib-storage: one PutObject for a small file, a multipart upload otherwise, aborted on any
 * failure) and `commit` only marks them as the caller's to name. A crash therefore leaves at most
 * an object that no row names, or an unfinished multipart upload: the sweep (sweep.ts) removes
 * those once they are older than any upload can be.
 *
 * Stays whole: the BlobStore's methods, each short, share the client, the bucket and the head size in
 * this closure (the disk store keeps the same in its class).
 */
export function createS3BlobStore(
  client: S3Client,
  bucket: string,
  options: S3BlobStoreOptions = {},
): BlobStore {
  const headBytes = options.headBytes ?? defaultHeadBytes;
  checkHeadBytes(headBytes);
  const objectKey = (key: string) => blobPrefix + key;

  function checked(key: string) {
    if (typeof key !== 'string' || !blobKeyPattern.test(key)) throw new InvalidBlobKeyError();
    return objectKey(key);
  }

  async function remove(key: string) {
    await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
  }

  async function stage(source: Readable, { maxBytes, key: reserved }: { maxBytes: number; key?: string }) {
    if (reserved !== undefined && !blobKeyPattern.test(reserved)) {
      source.destroy();
      throw new InvalidBlobKeyError();
    }
    const key = reserved ?? newBlobKey();
    let intake: ReturnType<typeof createIntake>;
    // The source's own failure, kept apart: lib-storage reports an abort that failed instead of it.
    let sourceFailure: { error: unknown } | undefined;
    try {
      intake = createIntake(maxBytes, headBytes);
      const counted = intake;
      async function* bytes() {
        const chunks = (source as AsyncIterable<unknown>)[Symbol.asyncIterator]();
        for (;;) {
          let next: IteratorResult<unknown>;
          try {
            next = await chunks.next();
          } catch (error) {
            sourceFailure = { error };
            throw error;
          }
          if (next.done) break;
          yield counted.take(next.value);
        }
        if (isTruncated(source)) throw new BlobTooLargeError(maxBytes);
      }
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: objectKey(key), Body: Readable.from(bytes()) },
        partSize,
        queueSize,
        leavePartsOnError: false,
      });
      await upload.done();
    } catch (caught) {
      // Destroying is what keeps the rest of an oversized or unwanted upload from being read.
      source.destroy();
      // The source's own error is the one it keeps (`errored`): a multipart file stream may report
      // another one to its reader first (busboy: "Part terminated early" before "Unexpected end").
      const error = sourceFailure ? (source.errored ?? sourceFailure.error) : caught;
      // lib-storage aborted its multipart upload, unless the bucket failed it: then it is tried again.
      if (outageOf(caught)) abortUnfinishedLater(client, bucket, objectKey(key));
      // A multipart stream cut at its limit may report that as its own error instead of ending.
      if (isTruncated(source) && !(error instanceof BlobTooLargeError)) {
        throw new BlobTooLargeError(maxBytes, { cause: error });
      }
      throw error;
    }
    const { size, sha256, head } = intake.result();
    return stagedBlob(key, size, sha256, head);
  }

  function stagedBlob(key: string, size: number, sha256: string, head: Buffer): StagedBlob {
    let state: 'staged' | 'committed' | 'discarded' = 'staged';
    return {
      key,
      size,
      sha256,
      head,
      async commit() {
        if (state !== 'staged') throw new StagedBlobSettledError(state);
        // The object is complete in the bucket since `stage` resolved: from now on a row may name it.
        state = 'committed';
      },
      async discard() {
        if (state !== 'staged') return;
        state = 'discarded';
        await remove(key);
      },
    };
  }

  return {
    stage,
    reserveKey: newBlobKey,

    async open(key, range) {
      const Key = checked(key);
      if (range) assertRange(range);
      try {
        const answer = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key,
            Range: range ? `bytes=${range.start}-${range.end}` : undefined,
          }),
        );
        // In Node the body is the response itself: destroying it closes the connection.
        return answer.Body as Readable;
      } catch (error) {
        if (isMissingObject(error)) return undefined;
        // A range starting past the end reads nothing, as a file read would.
        if (isUnsatisfiableRange(error)) return Readable.from([]);
        throw error;
      }
    },

    async size(key) {
      const Key = checked(key);
      try {
        const answer = await client.send(new HeadObjectCommand({ Bucket: bucket, Key }));
        return answer.ContentLength;
      } catch (error) {
        if (isMissingObject(error)) return undefined;
        throw error;
      }
    },

    async delete(key) {
      checked(key);
      await remove(key);
    },

    async removeTemporaryLeftovers({ startedBefore } = {}) {
      let removed = 0;
      let KeyMarker: string | undefined;
      let UploadIdMarker: string | undefined;
      for (;;) {
        const page = await client.send(
          new ListMultipartUploadsCommand({ Bucket: bucket, Prefix: blobPrefix, KeyMarker, UploadIdMarker }),
        );
        for (const upload of page.Uploads ?? []) {
          if (!upload.Key || !upload.UploadId) continue;
          if (startedBefore && !(upload.Initiated && upload.Initiated < startedBefore)) continue;
          try {
            await client.send(
              new AbortMultipartUploadCommand({ Bucket: bucket, Key: upload.Key, UploadId: upload.UploadId }),
            );
            removed++;
          } catch (error) {
            // Completed or aborted by its own instance since the listing.
            if ((error as { name?: unknown }).name !== 'NoSuchUpload') throw error;
          }
        }
        if (!page.IsTruncated) return removed;
        KeyMarker = page.NextKeyMarker;
        UploadIdMarker = page.NextUploadIdMarker;
      }
    },

    async reachable() {
      await client.send(new HeadBucketCommand({ Bucket: bucket }));
    },

    async freeBytes() {
      // A bucket has no "free space" to report.
      return undefined;
    },

    presignedUrl: (key, headers) => presignGet(client, bucket, checked(key), headers),

    async *keys({ startedBefore } = {}) {
      for await (const page of listPages(client, { Bucket: bucket, Prefix: blobPrefix })) {
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(blobPrefix.length);
          // Only names this store could have written.
          if (!key || !blobKeyPattern.test(key)) continue;
          // LastModified is when the object's upload began (a multipart upload's initiation) or
          // ended; either way an upload still in flight is never older than `startedBefore`.
          if (startedBefore && !(object.LastModified && object.LastModified < startedBefore)) continue;
          yield key;
        }
      }
    },
  };
}
