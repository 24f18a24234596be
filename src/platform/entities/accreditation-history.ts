import { isDeepStrictEqual } from 'node:util';
import type { HistoryEntry } from '../../shared/api/accreditations';
import type { HistoryAction } from '../../shared/api/review';
import type { DB } from '../db/database';
import { decisionFileRows, historyPageRows } from '../db/repositories/entities';
import type { AssetRow, NewAccreditationHistoryRow } from '../db/schema';
import { pageOf, type Page } from '../http/paging';

/**
 * The append-only history of each accreditation: entries are only ever inserted and read (and the
 * database refuses UPDATE and DELETE on the table, migration 0003). Writers append them
 * (`appendHistory` of the entities repository) inside the transaction of the change they record,
 * so a change and its entry commit together.
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

const isDecision = (action: HistoryAction) => action === 'approved' || action === 'rejected';

/**
 * One page of an accreditation's history, newest first (by id: entries of one transaction share a
 * time, and ids keep their order). `asset_id` is given only while that file still exists; a
 * decision lists the files it was made on, as they were then (decisions made before migration 0006
 * list none: their files were not kept).
 */
export async function historyPage(
  db: DB,
  accreditationId: number,
  page: { before?: number; limit: number },
): Promise<Page<HistoryEntry>> {
  const rows = await historyPageRows(db, accreditationId, page);
  const { items, nextCursor } = pageOf(rows, page.limit, historyList(accreditationId), (row) => [row.id]);
  const files = await decisionFileRows(
    db,
    items.filter((row) => isDecision(row.action)).map((row) => row.id),
  );
  return {
    nextCursor,
    items: items.map((row) => ({
      id: row.id,
      at: new Date(row.at).toISOString(),
      action: row.action,
      actor: { id: row.actor_id, name: row.actor_name, role: row.actor_role },
      note: row.note,
      reason: row.reason ?? null,
      ...(isDecision(row.action)
        ? {
            files: files
              .filter((file) => file.history_id === row.id)
              .map(({ asset_id, name, sha256, file_type, quality_issues }) => ({
                id: asset_id,
                name,
                sha256,
                file_type,
                ...(quality_issues !== null
                  ? { quality_issues: JSON.parse(quality_issues) as string[] }
                  : {}),
              })),
          }
        : {}),
      file:
        row.file_name === null
          ? null
          : {
              asset_id: row.existing_asset_id,
              name: row.file_name,
              previous_name: row.file_previous_name,
              file_type: row.file_type!,
            },
    })),
  };
}

/** The name cursors of one accreditation's history carry: a cursor of another one is refused. */
export const historyList = (accreditationId: number) => `history:${accreditationId}`;
