import type { AssetableType } from '../../shared/api/me';
import { findFileType } from '../../shared/assets/file-types';
import type { ExpressionBuilder } from 'kysely';
import type { PlatformContext } from '../context';
import { type DB, preparedRead } from '../db/database';
import type { AssetRow, Database } from '../db/schema';
import { assetableOwnerId } from '../entities/entities';
import { recordAccreditationFileChange } from '../entities/accreditations';
import type { UpdateBody } from './asset-input';

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
    // A pending thumbnail has no bytes yet: no size until its PNG is made.
    ...(row.pending === 1 ? { pending: true as const } : { size: row.size }),
    ...(row.width !== null && row.height !== null ? { width: row.width, height: row.height } : {}),
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    // The ETag header of GET /v2/core/assets/:id, also in lists (as Google's APIs do), so that every
    // asset a client holds can be changed with If-Match without reading it alone first.
    etag: etagOf(row),
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

/**
 * One page of an entity's own assets (thumbnails are not listed: they hang off their parent), newest
 * first by id, each with the id of its thumbnail. Which assets the caller may see is part of the
 * query, so a page is full whatever is hidden and the next one starts right after its last row:
 * `before` is the id of that row (ids only grow; one deleted meanwhile still marks the place).
 * `fileType` narrows the list to one file type (a single-file slot's newest file: `limit` 1).
 *
 * The index `assets_by_entity` (assetable_type, assetable_id, id) answers it without sorting: the
 * query reads the page's rows and stops, however many assets the entity has (measured: S11 in the
 * README; the plan is checked in entity-asset-pages.test.ts).
 */
export async function entityAssetPage(ctx: PlatformContext, entity: EntityRef, page: AssetPageRequest) {
  return entityAssetPageQuery(ctx.db, entity, page).execute();
}

type EntityRef = { type: AssetableType; id: number };
type AssetPageRequest = { before?: number; limit: number; withPrivate: boolean; fileType?: string };

/** The query of `entityAssetPage`, for its test to see the plan the database makes of it. */
export function entityAssetPageQuery(db: DB, entity: EntityRef, page: AssetPageRequest) {
  let query = db
    .selectFrom('assets')
    .selectAll('assets')
    .select(thumbnailIdColumn)
    .where('assets.assetable_type', '=', entity.type)
    .where('assets.assetable_id', '=', entity.id)
    .where('assets.thumbnail_of', 'is', null);
  if (page.fileType !== undefined) query = query.where('assets.file_type', '=', page.fileType);
  if (!page.withPrivate) query = query.where('assets.private', '=', 0);
  if (page.before !== undefined) query = query.where('assets.id', '<', page.before);
  // One row more than the page: whether another page follows, without counting.
  return query.orderBy('assets.id', 'desc').limit(page.limit + 1);
}

/**
 * Applies an update to an asset, its thumbnail's privacy (decisions.md: a thumbnail shares it) and
 * its history, in one transaction. Compare-and-set on the version read: undefined when another
 * update came first.
 */
export async function updateAssetRow(
  ctx: PlatformContext,
  row: AssetRow,
  changes: UpdateBody,
  actorId: number,
): Promise<AssetRow | undefined> {
  const at = ctx.clock();
  return ctx.db.transaction().execute(async (trx) => {
    const updated = await trx
      .updateTable('assets')
      .set({
        ...(changes.name !== undefined ? { name: changes.name } : {}),
        ...(changes.private !== undefined ? { private: changes.private ? 1 : 0 } : {}),
        ...(changes.meta !== undefined ? { meta: JSON.stringify(changes.meta) } : {}),
        version: row.version + 1,
        updated_at: at,
      })
      .where('id', '=', row.id)
      // Two concurrent updates with the same If-Match cannot both win.
      .where('version', '=', row.version)
      .returningAll()
      .executeTakeFirst();
    if (!updated) return undefined;
    if (changes.private !== undefined) {
      await trx
        .updateTable('assets')
        .set({ private: changes.private ? 1 : 0 })
        .where('thumbnail_of', '=', row.id)
        .execute();
    }
    await recordAccreditationFileChange(trx, { before: row, after: updated, actorId, at });
    return updated;
  });
}

/**
 * Deletes an asset's row and its thumbnail's, and records it, in one transaction; answers the blob
 * keys to remove afterwards, or undefined when the row was already gone or, with `expectedVersion`
 * (an If-Match), has changed since: then nothing is deleted or recorded.
 */
export async function deleteAssetRows(
  ctx: PlatformContext,
  row: AssetRow,
  actorId: number,
  expectedVersion?: number,
): Promise<string[] | undefined> {
  return ctx.db.transaction().execute(async (trx) => {
    const children = await trx
      .selectFrom('assets')
      .select('blob_key')
      .where('thumbnail_of', '=', row.id)
      .execute();
    let deleteParent = trx.deleteFrom('assets').where('id', '=', row.id);
    if (expectedVersion !== undefined) deleteParent = deleteParent.where('version', '=', expectedVersion);
    const { numDeletedRows } = await deleteParent.executeTakeFirst();
    if (numDeletedRows === 0n) return undefined;
    await trx.deleteFrom('assets').where('thumbnail_of', '=', row.id).execute();
    await recordAccreditationFileChange(trx, { before: row, actorId, at: ctx.clock() });
    return [row.blob_key, ...children.map((c) => c.blob_key)];
  });
}
