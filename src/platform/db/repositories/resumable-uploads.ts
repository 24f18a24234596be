import type { Kysely } from 'kysely';
import type { DB } from '../database';
import type { Database, ResumableUploadsTable } from '../schema';

/** Every query of resumable (tus) uploads' rows (src/platform/assets/resumable/). */

export async function insertResumableUpload(db: DB, row: ResumableUploadsTable) {
  await db.insertInto('resumable_uploads').values(row).execute();
}

export function resumableUploadById(db: DB, id: string) {
  return db.selectFrom('resumable_uploads').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Names the asset an upload became, inside the asset's transaction; false when another finish of
 * the same upload named one first (its transaction then rolls back: one asset per upload).
 */
export async function claimResumableUploadAsset(db: Kysely<Database>, id: string, assetId: number) {
  const result = await db
    .updateTable('resumable_uploads')
    .set({ asset_id: assetId })
    .where('id', '=', id)
    .where('asset_id', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteResumableUpload(db: DB, id: string) {
  await db.deleteFrom('resumable_uploads').where('id', '=', id).execute();
}

/** Uploads past their expiry, oldest first, a batch at a time (the sweep). */
export function expiredResumableUploads(db: DB, now: number, limit = 500) {
  return db
    .selectFrom('resumable_uploads')
    .select(['id', 'asset_id'])
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .execute();
}
