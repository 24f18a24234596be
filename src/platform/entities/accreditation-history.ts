import type { HistoryEntry } from '../../shared/api/accreditations';
import type { HistoryAction } from '../../shared/api/review';
import type { DB } from '../db/database';
import { decisionFileRows, historyPageRows } from '../db/repositories/entities';
import { pageOf, type Page } from '../http/paging';

/**
 * The append-only history of each accreditation: entries are only ever inserted and read (and the
 * database refuses UPDATE and DELETE on the table, migration 0003). Writers append them
 * (`appendHistory` of the entities repository) inside the transaction of the change they record,
 * so a change and its entry commit together.
 */

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
