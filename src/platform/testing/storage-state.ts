import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDatabase } from '../db/database';
import type { PlatformConfig } from '../env';

/**
 * What the platform keeps: asset rows, committed files and staging leftovers. `rowKeys` are the
 * keys of rows that must have their file; a pending thumbnail's row names a key that holds nothing
 * until its PNG is made (by design), so those are apart, in `pendingKeys`. Read through a
 * connection of its own, as another program would, on whichever database the platform uses.
 */
export async function storageState(config: PlatformConfig) {
  const db = await openDatabase(config);
  try {
    const keys = await db.selectFrom('assets').select(['blob_key', 'pending']).execute();
    const blobs = join(config.dataDir, 'blobs');
    const folders = existsSync(blobs) ? readdirSync(blobs).filter((f) => f !== 'tmp') : [];
    const files = folders.flatMap((f) => readdirSync(join(blobs, f)));
    const temporary = existsSync(join(blobs, 'tmp')) ? readdirSync(join(blobs, 'tmp')).length : 0;
    return {
      rows: keys.length,
      files: files.length,
      temporary,
      fileNames: files,
      rowKeys: keys.filter((k) => k.pending === 0).map((k) => k.blob_key),
      pendingKeys: keys.filter((k) => k.pending === 1).map((k) => k.blob_key),
    };
  } finally {
    await db.destroy();
  }
}
