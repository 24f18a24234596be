import type { Locker } from '@tus/utils';
import type { DB } from '../db/database';
import type { PlatformConfig } from '../config/env';
import type { Renditions } from '../media/renditions';
import type { PendingThumbnails } from '../media/pending-thumbnails';
import type { RunningClaims } from '../shared-state/running-claims';
import type { BlobStore } from '../storage/blob-store';
import type { UploadSlots } from './upload-slots';

/** What the Asset API's routes are given by the composition root (composition/app.ts). */
export interface AssetsContext {
  config: PlatformConfig;
  db: DB;
  /** Milliseconds since the epoch; tests move it. */
  clock: () => number;
  /** Signs the short-lived download URLs. */
  signingKey: Buffer;
  blobs: BlobStore;
  /** The per-user cap of uploads in flight (H8). */
  uploadSlots: UploadSlots;
  /** Idempotency-Keys whose first request runs, here or on another instance. */
  runningClaims: RunningClaims;
  /** Who writes a resumable (tus) upload now, on this instance or another. */
  uploadLocker: Locker;
  /** Image renditions (cropped, preview), cached under DATA_DIR/renditions or in the bucket (BLOB_STORE). */
  renditions: Renditions;
  /** Thumbnails reserved by uploads, made after their answers (and after a restart). */
  thumbnails: PendingThumbnails;
}
