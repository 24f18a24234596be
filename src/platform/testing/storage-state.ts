import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';

/**
 * What the platform keeps on disk: asset rows, committed files and staging leftovers. `rowKeys` are
 * the keys of rows that must have their file; a pending thumbnail's row names a key that holds
 * nothing until its PNG is made (by design), so those are apart, in `pendingKeys`.
 */
export function storageState(dataDir: string) {
  const db = new SQLite(join(dataDir, 'platform.sqlite'), { readonly: true });
  try {
    const rows = (db.prepare('select count(*) as n from assets').get() as { n: number }).n;
    const keys = db.prepare('select blob_key, pending from assets').all() as {
      blob_key: string;
      pending: number;
    }[];
    const blobs = join(dataDir, 'blobs');
    const folders = existsSync(blobs) ? readdirSync(blobs).filter((f) => f !== 'tmp') : [];
    const files = folders.flatMap((f) => readdirSync(join(blobs, f)));
    const temporary = existsSync(join(blobs, 'tmp')) ? readdirSync(join(blobs, 'tmp')).length : 0;
    return {
      rows,
      files: files.length,
      temporary,
      fileNames: files,
      rowKeys: keys.filter((k) => k.pending === 0).map((k) => k.blob_key),
      pendingKeys: keys.filter((k) => k.pending === 1).map((k) => k.blob_key),
    };
  } finally {
    db.close();
  }
}
