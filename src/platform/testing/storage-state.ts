import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';

/** What the platform keeps on disk: asset rows, committed files and staging leftovers. */
export function storageState(dataDir: string) {
  const db = new SQLite(join(dataDir, 'platform.sqlite'), { readonly: true });
  try {
    const rows = (db.prepare('select count(*) as n from assets').get() as { n: number }).n;
    const keys = db.prepare('select blob_key from assets').all() as { blob_key: string }[];
    const blobs = join(dataDir, 'blobs');
    const folders = existsSync(blobs) ? readdirSync(blobs).filter((f) => f !== 'tmp') : [];
    const files = folders.flatMap((f) => readdirSync(join(blobs, f)));
    const temporary = existsSync(join(blobs, 'tmp')) ? readdirSync(join(blobs, 'tmp')).length : 0;
    return { rows, files: files.length, temporary, fileNames: files, rowKeys: keys.map((k) => k.blob_key) };
  } finally {
    db.close();
  }
}
