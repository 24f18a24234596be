import type { Locker } from '@tus/utils';
import type { DB } from './db/database';
import type { PlatformConfig } from './env';
import type { SignInThrottle } from './security/sign-in-limiter';
import type { BlobStore } from './storage/blob-store';
import type { AccessTokenCache } from './oauth/access-token-cache';
import type { UploadSlots } from './assets/upload-slots';
import type { RunningClaims } from './assets/running-claims';
import type { Renditions } from './media/renditions';
import type { PdfThumbnailPool } from './media/pdf-thumbnail-pool';
import type { PendingThumbnails } from './media/pending-thumbnails';

/** What every route module needs, built once by the app factory and passed down explicitly. */
export interface PlatformContext {
  config: PlatformConfig;
  db: DB;
  /** Milliseconds since the epoch; tests move it to expire codes and tokens. */
  clock: () => number;
  signingKey: Buffer;
  signInLimiter: SignInThrottle;
  blobs: BlobStore;
  accessTokens: AccessTokenCache;
  /** The per-user cap of uploads in flight (H8). */
  uploadSlots: UploadSlots;
  /** Idempotency-Keys whose first request runs, here or on another instance. */
  runningClaims: RunningClaims;
  /** Who writes a resumable (tus) upload now, on this instance or another. */
  uploadLocker: Locker;
  /** Image renditions (cropped, preview), cached under DATA_DIR/renditions or in the bucket (BLOB_STORE). */
  renditions: Renditions;
  /** Worker threads that render page 1 of uploaded PDFs (thumbnails); never the main thread. */
  pdfThumbnails: PdfThumbnailPool;
  /** Thumbnails reserved by uploads, made after their answers (and after a restart). */
  thumbnails: PendingThumbnails;
}
