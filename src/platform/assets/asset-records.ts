import type { AssetableType } from '../../shared/api/me';
import { findFileType } from '../../shared/assets/file-types';
import type { ExpressionBuilder } from 'kysely';
import type { PlatformContext } from '../context';
import { type DB, preparedRead } from '../db/database';
import type { AssetRow, Database } from '../db/schema';
import { assetableOwnerId } from '../entities/entities';

/** The Asset of spec 2.2 as the API answers it, with our additions (size, content type, pixels, times). */
export function toApiAsset(row: AssetRow, thumbnailId: number | null) {
  return {
    id: row.id,
    name: row.name,
    file_type: row.file_type,
    assetable: { type: row.assetable_type, id: row.assetable_id },
    key: row.blob_key,
    meta: JSON.parse(row.meta) as Record<string, unknown>,
    private: row.private === 1,
    // Thumbnails are never thumbnailed themselves (decisions.md).
    thumbifiable: row.thumbnail_of === null && (findFileType(row.file_type)?.thumbifiable ?? false),
    ...(thumbnailId !== null ? { thumbnail_id: String(thumbnailId) } : {}),
    content_type: row.content_type,
    size: row.size,
    ...(row.width !== null && row.height !== null ? { width: row.width, height: row.height } : {}),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export type ApiAsset = ReturnType<typeof toApiAsset>;

export const etagOf = (row: Pick<AssetRow, 'id' | 'version'>) => `"${row.id}.${row.version}"`;

const thumbnailIdColumn = (eb: ExpressionBuilder<Database, 'assets'>) =>
  eb
    .selectFrom('assets as t')
    .select('t.id')
    .whereRef('t.thumbnail_of', '=', 'assets.id')
    .limit(1)
    .as('thumbnail_id');

const assetRowRead = preparedRead((db: DB, id: number) =>
  db.selectFrom('assets').selectAll('assets').select(thumbnailIdColumn).where('assets.id', '=', id),
);

const assetWithOwnerRead = preparedRead((db: DB, id: number) =>
  db
    .selectFrom('assets')
    .selectAll('assets')
    .select((eb) => [thumbnailIdColumn(eb), assetableOwnerId(eb).as('owner_id')])
    .where('assets.id', '=', id),
);

/** An asset row with the id of its thumbnail, in one read (file delivery). */
export async function findAssetRow(ctx: PlatformContext, id: number) {
  return assetRowRead(ctx.db, id);
}

/**
 * An asset row with the id of its thumbnail and the owner of its entity (`owner_id`, null when the
 * entity is gone), in one read: the hot path of GET /v2/core/assets/:id and its download_url.
 */
export async function findAssetWithOwner(ctx: PlatformContext, id: number) {
  return assetWithOwnerRead(ctx.db, id);
}

export async function thumbnailIdOf(ctx: PlatformContext, id: number): Promise<number | null> {
  const row = await ctx.db
    .selectFrom('assets')
    .select('id')
    .where('thumbnail_of', '=', id)
    .executeTakeFirst();
  return row?.id ?? null;
}

/** An entity's own assets (thumbnails are not listed: they hang off their parent). */
export async function entityAssetRows(ctx: PlatformContext, type: AssetableType, id: number) {
  const rows = await ctx.db
    .selectFrom('assets')
    .selectAll()
    .where('assetable_type', '=', type)
    .where('assetable_id', '=', id)
    .orderBy('id')
    .execute();
  const thumbnails = new Map(rows.filter((r) => r.thumbnail_of !== null).map((r) => [r.thumbnail_of!, r.id]));
  return rows
    .filter((r) => r.thumbnail_of === null)
    .map((row) => ({ row, thumbnailId: thumbnails.get(row.id) ?? null }));
}
