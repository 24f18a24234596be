import type { ApiAccreditation } from '../../shared/api/accreditations';
import { entityPath } from '../../shared/api/entities';
import type { AccreditationListStatus } from '../../shared/api/review';
import type { DB } from '../db/database';
import {
  type AccreditationViewRow,
  accreditationPageRows,
  lockedAccreditationReviewState,
  accreditationViewRow,
  appendHistory,
  insertAccreditation,
  recordDecision,
  reopenIfRejected,
} from '../db/repositories/entities';
import type { AssetRow } from '../db/schema';
import { pageOf, type Page } from '../paging';
import { checkIfMatch } from '../preconditions';
import { fileHistoryEntries } from './accreditation-history';

/** The review state an accreditation's ETag names: a decision or a reopening bumps its version. */
export const accreditationEtag = (row: { id: number; version: number }) =>
  `"accreditation.${row.id}.${row.version}"`;

function toApiAccreditation(row: AccreditationViewRow): ApiAccreditation {
  const path = entityPath('Accreditation', row.id);
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    review_note: row.review_note,
    // Filled in by the review's next commits (issue 28); the shapes come first so that the app builds.
    review_reason: null,
    reviewed_at: row.reviewed_at === null ? null : new Date(row.reviewed_at).toISOString(),
    reviewed_by: row.reviewer_id === null ? null : { id: row.reviewer_id, name: row.reviewer_name! },
    last_decision: null,
    submitted_at: null,
    address_on_licence: true,
    requirements: [],
    owner: { id: row.owner_id, name: row.owner_name, email: row.owner_email },
    etag: accreditationEtag(row),
    links: { assets: `${path}/assets`, history: `${path}/history` },
  };
}

/** An accreditation with its review state, owner and reviewer; it must exist. */
export async function accreditationView(db: DB, id: number): Promise<ApiAccreditation> {
  return toApiAccreditation(await accreditationViewRow(db, id));
}

/** A new investor's accreditation, waiting for their documents and an admin's decision. */
export async function openAccreditation(
  db: DB,
  owner: { id: number; name: string },
  now = Date.now(),
): Promise<{ id: number; name: string }> {
  const name = `Accreditation of ${owner.name}`;
  const id = await insertAccreditation(db, { ownerId: owner.id, name, createdAt: now });
  return { id, name };
}

export const accreditationList = (status: AccreditationListStatus) => `accreditations:${status}`;

/**
 * One page of the admins' list. Pending ones by id, oldest accreditation first; decided ones newest
 * decision first, by decision time and id. Keyset paging: items added while someone pages never
 * shift a page, and one that moves meanwhile (decided again, reopened) may be missed by that pass
 * but is never shown twice.
 */
export async function accreditationPage(
  db: DB,
  status: AccreditationListStatus,
  page: { after?: number[]; limit: number },
): Promise<Page<ApiAccreditation>> {
  const rows = await accreditationPageRows(db, status, page);
  const { items, nextCursor } = pageOf(rows, page.limit, accreditationList(status), (row) =>
    status === 'pending' ? [row.id] : [row.reviewed_at!, row.id],
  );
  return { items: items.map(toApiAccreditation), nextCursor };
}

/** The sort key a cursor of this list carries. */
export const accreditationCursorLength = (status: AccreditationListStatus) => (status === 'pending' ? 1 : 2);

/**
 * Records an admin's decision with its history entry, in one transaction. Deciding again on a
 * decided accreditation is a new decision (a correction; the earlier one stays in the history),
 * unless it repeats the current one (same status and note), which changes nothing: a retried
 * request records no second entry. `If-Match` with the accreditation's ETag makes a decision on a
 * page that has gone stale (someone decided meanwhile, or the owner answered a rejection) a 412.
 */
export async function decide(
  db: DB,
  id: number,
  decision: { status: 'approved' | 'rejected'; note: string | null },
  reviewerId: number,
  at: number,
  ifMatch: string | undefined,
): Promise<ApiAccreditation> {
  return db.transaction().execute(async (trx) => {
    const current = await lockedAccreditationReviewState(trx, id);
    checkIfMatch(
      ifMatch,
      accreditationEtag(current),
      'This accreditation changed since you read it (decided by someone else, or the investor uploaded a file); reload it and decide again.',
    );
    if (current.status !== decision.status || current.review_note !== decision.note) {
      await recordDecision(trx, id, { ...decision, reviewerId, at, version: current.version + 1 });
      await appendHistory(trx, [
        { accreditation_id: id, at, actor_id: reviewerId, action: decision.status, note: decision.note },
      ]);
    }
    return accreditationView(trx, id);
  });
}

/**
 * Records a change to an accreditation's file in its history (no-op for other entities' files and
 * for thumbnails), inside the change's own transaction: an upload (`before` undefined), an update,
 * or a delete (`after` undefined). An upload to a rejected accreditation also puts it back to
 * pending: the investor is answering the rejection, so it goes back to the admins' queue. An
 * approved one stays approved (its upload is in the history for admins to see).
 */
export async function recordAccreditationFileChange(
  trx: DB,
  change: { before?: AssetRow; after?: AssetRow; actorId: number; at: number },
): Promise<void> {
  const file = change.after ?? change.before!;
  if (file.assetable_type !== 'Accreditation' || file.thumbnail_of !== null) return;
  await appendHistory(trx, fileHistoryEntries(change.before, change.after, change.actorId, change.at));
  if (change.before) return;
  if (await reopenIfRejected(trx, file.assetable_id)) {
    await appendHistory(trx, [
      { accreditation_id: file.assetable_id, at: change.at, actor_id: change.actorId, action: 'reopened' },
    ]);
  }
}
