import { join } from 'node:path';
import type { PlatformConfig } from '../config/env';
import { createRenditionCache, type RenditionCache } from '../media/rendition-cache';
import { createS3RenditionCache } from '../media/s3-rendition-cache';
import type { BlobStore } from '../storage/blob-store';
import { createFsBlobStore } from '../storage/fs-blob-store';
import { createS3BlobStore } from '../storage/s3-blob-store';
import { createS3Client } from '../storage/s3-client';
import { orphanAgeMs } from '../storage/sweep';

/** Where originals, thumbnails and renditions live, as BLOB_STORE chose. */
export interface Storage {
  blobs: BlobStore;
  renditionCache: RenditionCache;
  /**
   * A bucket is shared by every instance: its sweep takes only what is older than this, and runs
   * periodically. Undefined for the local disk, which one process owns and sweeps whole at start.
   */
  orphanAgeMs: number | undefined;
  /** Lets go of the connections to the bucket. */
  close(): void;
}

export function createStorage(config: PlatformConfig): Storage {
  const store = config.blobStore;
  if (store.kind === 'fs') {
    return {
      blobs: createFsBlobStore(join(config.dataDir, 'blobs')),
      renditionCache: createRenditionCache(join(config.dataDir, 'renditions')),
      orphanAgeMs: undefined,
      close: () => {},
    };
  }
  const client = createS3Client(store);
  return {
    blobs: createS3BlobStore(client, store.bucket),
    renditionCache: createS3RenditionCache(client, store.bucket),
    orphanAgeMs: orphanAgeMs(config.http.requestTimeoutMs),
    close: () => client.destroy(),
  };
}
