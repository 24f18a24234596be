import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { FileStore } from '@tus/file-store';
import { S3Store } from '@tus/s3-store';
import type { Readable } from 'node:stream';
import { type DataStore, ERRORS } from '@tus/utils';
import type { PlatformConfig } from '../../config/env';
import { s3Checksums } from '../../storage/s3-client';

/**
 * Where the bytes of unfinished resumable uploads wait: files under DATA_DIR/resumable-uploads (the
 * embedded default), or the bucket of BLOB_STORE=s3, where @tus/s3-store keeps each upload as an S3
 * multipart upload plus an `.info` object, at the bucket's root (our blobs live under `blobs/`, so
 * the orphan sweep never sees them). Either way any instance can continue any upload.
 */
/** A tus store that can read an upload back (both of ours can; DataStore does not say so). */
export type ResumableStore = DataStore & { read(id: string): Readable | Promise<Readable> };

interface FileStoreOptions {
  directory: string;
  expirationPeriodInMilliseconds: number;
}
// The method is private in the library's types, though an ordinary method of the class.
const OpenFileStore = FileStore as unknown as new (
  options: FileStoreOptions,
) => ResumableStore & { checkOrCreateDirectory(): void };
/**
 * @tus/file-store creates its folder from its constructor, asynchronously, throwing from the
 * callback when that fails: an uncaught exception if the data folder went away meanwhile (a
 * platform built and closed at once, as the admin command and tests do). The folder is made here,
 * synchronously, before the store exists, and the store's own attempt is left out.
 */
class FileStoreInMadeFolder extends OpenFileStore {
  constructor(options: FileStoreOptions) {
    mkdirSync(options.directory, { recursive: true, mode: 0o700 });
    super(options);
  }

  override checkOrCreateDirectory() {}
}

/**
 * @tus/s3-store, made to leave nothing of an upload it removes. Its `remove` first aborts the
 * upload's multipart upload, which S3 no longer knows once the last byte completed it
 * (NoSuchUpload): it then stops before deleting the upload's objects, so every finished upload left
 * its whole file and its `.info` in the bucket; and it never deletes the incomplete part it keeps
 * beside them (`<id>.part`). Found against a real S3 server (resumable-s3.test.ts).
 */
class S3StoreLeavingNothing extends S3Store {
  override async remove(id: string): Promise<void> {
    let unknown: unknown;
    try {
      await super.remove(id);
    } catch (error) {
      if (error !== ERRORS.FILE_NOT_FOUND) throw error;
      unknown = error;
    }
    await this.client.deleteObjects({
      Bucket: this.bucket,
      Delete: { Objects: [id, this.infoKey(id), this.partKey(id, true)].map((Key) => ({ Key })) },
    });
    // The library's answer for an upload it does not know stays the same (tus's 404).
    if (unknown) throw unknown;
  }
}

export function createResumableStore(config: PlatformConfig): ResumableStore {
  const expirationPeriodInMilliseconds = config.resumableUploadExpiryMs;
  const store = config.blobStore;
  if (store.kind === 'fs') {
    return new FileStoreInMadeFolder({
      directory: join(config.dataDir, 'resumable-uploads'),
      expirationPeriodInMilliseconds,
    });
  }
  return new S3StoreLeavingNothing({
    expirationPeriodInMilliseconds,
    // 8 MB parts: few requests per 100 MB file, and at most one part in memory per PATCH.
    partSize: 8 * 1024 * 1024,
    s3ClientConfig: {
      bucket: store.bucket,
      region: store.region,
      endpoint: store.endpoint,
      forcePathStyle: store.forcePathStyle,
      credentials: store.credentials,
      ...s3Checksums,
    },
  });
}
