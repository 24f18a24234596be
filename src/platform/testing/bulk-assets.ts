import { randomUUID } from 'node:crypto';
import type { AssetableType } from '../../shared/api/me';
import type { DB } from '../db/database';

/**
 * Adds `count` asset rows to an entity in one transaction of bulk inserts, for tests and the bench
 * that need an entity with thousands of assets (uploading 100 000 files over HTTP would take an hour).
 * Only rows: their keys hold no bytes, so they serve lists and entity reads, not downloads.
 * `private` says which of them (by position, 0 the oldest) are private. Answers the ids, oldest first.
 */
export async function insertAssetRows(
  db: DB,
  entity: { type: AssetableType; id: number },
  options: { count: number; fileType: string; createdBy: number; private?: (index: number) => boolean },
): Promise<number[]> {
  const now = Date.now();
  // SQLite binds at most 32 766 values per statement; a row here has 16.
  const chunk = 1000;
  return db.transaction().execute(async (trx) => {
    const ids: number[] = [];
    for (let start = 0; start < options.count; start += chunk) {
      const rows = Array.from({ length: Math.min(chunk, options.count - start) }, (_, offset) => {
        const index = start + offset;
        return {
          name: `listed-${index}.csv`,
          file_type: options.fileType,
          assetable_type: entity.type,
          assetable_id: entity.id,
          blob_key: `bulk-${randomUUID()}`,
          content_type: 'text/csv',
          size: 20,
          sha256: '0'.repeat(64),
          width: null,
          height: null,
          meta: '{}',
          private: options.private?.(index) ? 1 : 0,
          thumbnail_of: null,
          version: 1,
          created_by: options.createdBy,
          created_at: now,
          updated_at: now,
        };
      });
      const inserted = await trx.insertInto('assets').values(rows).returning('id').execute();
      ids.push(...inserted.map((row) => row.id));
    }
    // RETURNING's order is not promised; ids grow with each row inserted.
    return ids.sort((a, b) => a - b);
  });
}
