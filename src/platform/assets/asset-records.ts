import { findFileType } from '../../shared/assets/file-types';
import type { PhotoQuality } from '../../shared/assets/photo-quality';
import type { AssetsContext } from './assets-context';
import {
  deleteAsset,
  deleteThumbnailsOf,
  setThumbnailPrivacy,
  thumbnailBlobKeys,
  updateAssetAtVersion,
} from '../db/repositories/assets';
import { lockedAccreditationReviewState } from '../db/repositories/entities';
import type { AssetRow } from '../db/schema';
import { recordAccreditationFileChange } from '../evidence/file-history';
import { checkNotRetained } from '../evidence/retained-files';
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
    // Last, in the order of assetSchema (the serializer writes server-built bodies as they are).
    ...(row.quality !== null ? { quality: JSON.parse(row.quality) as PhotoQuality } : {}),
  };
}

export type ApiAsset = ReturnType<typeof toApiAsset>;

export const etagOf = (row: Pick<AssetRow, 'id' | 'version'>) => `"${row.id}.${row.version}"`;

/**
 * Applies an update to an asset, its thumbnail's privacy (decisions.md: a thumbnail shares it) and
 * its history, in one transaction. Compare-and-set on the version read: undefined when another
 * update came first.
 */
export async function updateAssetRow(
  ctx: AssetsContext,
  row: AssetRow,
  changes: UpdateBody,
  actorId: number,
): Promise<AssetRow | undefined> {
  const at = ctx.clock();
  return ctx.db.transaction().execute(async (trx) => {
    const updated = await updateAssetAtVersion(trx, row.id, row.version, changes, at);
    if (!updated) return undefined;
    if (changes.private !== undefined) await setThumbnailPrivacy(trx, row.id, changes.private);
    await recordAccreditationFileChange(trx, { before: row, after: updated, actorId, at });
    return updated;
  });
}

/**
 * Deletes an asset's row and its thumbnail's, and records it, in one transaction; answers the blob
 * keys to remove afterwards, or undefined when the row was already gone or, with `expectedVersion`
 * (an If-Match), has changed since: then nothing is deleted or recorded. A file a decision was made
 * on is refused (409 `retained`) here too, for a decision recorded since the route checked.
 */
export async function deleteAssetRows(
  ctx: AssetsContext,
  row: AssetRow,
  actorId: number,
  expectedVersion?: number,
): Promise<string[] | undefined> {
  return ctx.db.transaction().execute(async (trx) => {
    // An accreditation's file waits for a decision being recorded on it (which locks the same
    // row), then sees it: refused as its evidence, never a foreign-key failure half-way.
    if (row.assetable_type === 'Accreditation' && row.thumbnail_of === null)
      await lockedAccreditationReviewState(trx, row.assetable_id);
    await checkNotRetained(trx, row.id);
    const thumbnailKeys = await thumbnailBlobKeys(trx, row.id);
    if (!(await deleteAsset(trx, row.id, expectedVersion))) return undefined;
    await deleteThumbnailsOf(trx, row.id);
    await recordAccreditationFileChange(trx, { before: row, actorId, at: ctx.clock() });
    return [row.blob_key, ...thumbnailKeys];
  });
}
