import { assetListPath } from '../../shared/api/entities';
import { type ApiAsset, toApiAsset } from './asset-records';
import type { AssetsContext } from './assets-context';
import { entityAssetPage } from '../db/repositories/assets';
import type { Caller } from '../access/caller';
import { decodeCursor, pageOf, type Page } from '../http/paging';
import { canSeeAsset, type Entity, type EntityAccess } from '../access/entity-access';

/**
 * One page of the assets of an entity the caller may read, newest first: the private ones only where
 * the caller may see them (the same rule as every other read, `canSeeAsset`, applied in the query so
 * that pages stay full and cursors exact). `cursor` is the `next_cursor` of the page before.
 */
export async function visibleAssetPage(
  ctx: AssetsContext,
  caller: Caller,
  { entity, access }: { entity: Entity; access: EntityAccess },
  page: { cursor?: string; limit: number; fileType?: string },
): Promise<Page<ApiAsset>> {
  const list = assetListPath(entity, page.fileType);
  const before = decodeCursor(page.cursor, list, 1)?.[0];
  const rows = await entityAssetPage(ctx.db, entity, {
    before,
    limit: page.limit,
    fileType: page.fileType,
    withPrivate: canSeeAsset(caller, access, { private: true }),
  });
  const { items, nextCursor } = pageOf(rows, page.limit, list, (row) => [row.id]);
  return { items: items.map((row) => toApiAsset(row, row.thumbnail_id)), nextCursor };
}
