import { isDeepStrictEqual } from 'node:util';
import type { HistoryAction } from '../../shared/api/review';
import type { DB } from '../db/database';
import { appendHistory, reopenIfDecided } from '../db/repositories/entities';
import type { AssetRow, NewAccreditationHistoryRow } from '../db/schema';

/**
 * What a change to one of an accreditation's files means for its review: the entries it adds to the
 * accreditation's history, and the reopening of a decided accreditation by a new upload. The asset
 * routes (which change files) and the entities' review (which reads the history) both build on it,
 * so it sits below both.
 */

const parseMeta = (meta: string) => JSON.parse(meta) as Record<string, unknown>;

/**
 * What a change to an asset did, as history actions: an upload (no `before`), a delete (no `after`),
 * or each attribute an update changed. A `meta` change is a re-crop when `crop` changed (set,
 * moved or removed), and a meta change when anything else in it did; an update that changed nothing
 * records nothing.
 */
export function fileChangeActions(
  before: AssetRow | undefined,
  after: AssetRow | undefined,
): { action: HistoryAction; previousName?: string }[] {
  if (!before) return [{ action: 'file_uploaded' }];
  if (!after) return [{ action: 'file_deleted' }];
  const actions: { action: HistoryAction; previousName?: string }[] = [];
  if (after.name !== before.name) actions.push({ action: 'file_renamed', previousName: before.name });
  if (after.private !== before.private)
    actions.push({ action: after.private ? 'file_made_private' : 'file_made_public' });
  const { crop: cropBefore, ...restBefore } = parseMeta(before.meta);
  const { crop: cropAfter, ...restAfter } = parseMeta(after.meta);
  if (!isDeepStrictEqual(cropBefore, cropAfter)) actions.push({ action: 'file_cropped' });
  if (!isDeepStrictEqual(restBefore, restAfter)) actions.push({ action: 'file_meta_changed' });
  return actions;
}

/** History entries for a change to one of an accreditation's files (see `fileChangeActions`). */
export function fileHistoryEntries(
  before: AssetRow | undefined,
  after: AssetRow | undefined,
  actorId: number,
  at: number,
): NewAccreditationHistoryRow[] {
  const file = (after ?? before)!;
  return fileChangeActions(before, after).map(({ action, previousName }) => ({
    accreditation_id: file.assetable_id,
    at,
    actor_id: actorId,
    action,
    note: null,
    asset_id: file.id,
    file_name: file.name,
    file_previous_name: previousName ?? null,
    file_type: file.file_type,
  }));
}

/**
 * Records a change to an accreditation's file in its history (no-op for other entities' files and
 * for thumbnails), inside the change's own transaction: an upload (`before` undefined), an update,
 * or a delete (`after` undefined). An upload to a decided accreditation also puts it back to
 * `documents_needed`: the investor is adding to what was decided on, so it waits for them to send it
 * again. One waiting for a decision stays waiting (the admins see the new file with it).
 */
export async function recordAccreditationFileChange(
  trx: DB,
  change: { before?: AssetRow; after?: AssetRow; actorId: number; at: number },
): Promise<void> {
  const file = change.after ?? change.before!;
  if (file.assetable_type !== 'Accreditation' || file.thumbnail_of !== null) return;
  await appendHistory(trx, fileHistoryEntries(change.before, change.after, change.actorId, change.at));
  if (change.before) return;
  if (await reopenIfDecided(trx, file.assetable_id)) {
    await appendHistory(trx, [
      { accreditation_id: file.assetable_id, at: change.at, actor_id: change.actorId, action: 'reopened' },
    ]);
  }
}
