import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../db/database';
import type { PlatformConfig } from '../config/env';
import { createStorage } from '../composition/storage';
import { createS3Client } from '../storage/s3-client';
import { sweepStorage } from '../storage/sweep';
import { blobPrefix } from '../storage/s3-blob-store';
import { bucketContents } from './blob-stores';
import { testRedisClient } from './redis';
import { storedBlobKeys } from './stored-files';

/**
 * What the platform keeps: asset rows, committed files and staging leftovers (temporary files on
 * disk; unfinished multipart uploads in a bucket). `rowKeys` are the keys of rows that must have
 * their file; a pending thumbnail's row names a key that holds nothing until its PNG is made (by
 * design), so those are apart, in `pendingKeys`. Read as another program would, on whichever
 * database and store the platform uses.
 */
export async function storageState(config: PlatformConfig) {
  const db = await openDatabase(config);
  try {
    const keys = await db.selectFrom('assets').select(['blob_key', 'pending']).execute();
    const files = await storedBlobKeys({ config, dataDir: config.dataDir });
    return {
      rows: keys.length,
      files: files.length,
      temporary: await stagingLeftovers(config),
      fileNames: files,
      rowKeys: keys.filter((k) => k.pending === 0).map((k) => k.blob_key),
      pendingKeys: keys.filter((k) => k.pending === 1).map((k) => k.blob_key),
    };
  } finally {
    await db.destroy();
  }
}

async function stagingLeftovers(config: PlatformConfig): Promise<number> {
  const store = config.blobStore;
  if (store.kind === 's3') {
    const client = createS3Client(store);
    try {
      const { uploads } = await bucketContents(client, store.bucket);
      return uploads.filter((key) => key.startsWith(blobPrefix)).length;
    } finally {
      client.destroy();
    }
  }
  const tmp = join(config.dataDir, 'blobs', 'tmp');
  return existsSync(tmp) ? readdirSync(tmp).length : 0;
}

/**
 * Uploads the platform is receiving now, for tests that act while one is under way: their places in
 * the per-user cap where those are in Redis (leases still running: an instance killed mid-upload
 * leaves its places until they run out), else their staging files on disk. (A small upload to a
 * bucket shows nothing there until its end: it is one PutObject.)
 */
export async function uploadsUnderWay(config: PlatformConfig): Promise<number> {
  if (!config.redis) {
    if (config.blobStore.kind === 's3') throw new Error('uploads under way: needs Redis or the disk store');
    return stagingLeftovers(config);
  }
  const redis = testRedisClient();
  try {
    const pattern = `${config.redis.keyPrefix.replace(/[*?[\]\\]/g, '\\$&')}uploads:*`;
    // Leases are scored with their end, on Redis's clock.
    const [seconds, micros] = await redis.time();
    const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    let count = 0;
    for await (const keys of redis.scanStream({ match: pattern }) as AsyncIterable<string[]>)
      for (const key of keys) count += await redis.zcount(key, `(${now}`, '+inf');
    return count;
  } finally {
    redis.disconnect();
  }
}

/**
 * What the sweep leaves once the orphans of a crash are old enough to go: a bucket shared by several
 * instances is swept by age (storage/sweep.ts), so right after a restart its orphans are still
 * there. Runs the platform's own sweep with its clock moved past the age limit. A disk store is
 * swept whole at start: nothing to do here, so tests still see what that start-up sweep left.
 */
export async function sweepOnceOrphansAreOld(config: PlatformConfig) {
  const storage = createStorage(config);
  if (storage.orphanAgeMs === undefined) return storage.close();
  const db = await openDatabase(config);
  try {
    const later = Date.now() + storage.orphanAgeMs + 60_000;
    await sweepStorage({ db, blobs: storage.blobs, clock: () => later }, { minAgeMs: storage.orphanAgeMs });
  } finally {
    await db.destroy();
    storage.close();
  }
}
