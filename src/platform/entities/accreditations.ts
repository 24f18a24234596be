import type { Kysely } from 'kysely';
import type { ApiAccreditation } from '../../shared/api/accreditations';
import { entityPath } from '../../shared/api/entities';
import type { AccreditationListStatus } from '../../shared/api/review';
import type { AssetRow, Database } from '../db/schema';
import { pageOf, type Page } from '../paging';
import { checkIfMatch } from '../preconditions';
import { appendHistory, fileHistoryEntries } from './accreditation-history';

/** The review state an accreditation's ETag names: a decision or a reopening bumps its version. */
export const accreditationEtag = (row: { id: number; version: number }) =>
  `"accreditation.${row.id}.${row.version}"`;

function viewQuery(db: Kysely<Database>) {
  return db
    .selectFrom('accreditations')
    .innerJoin('users as owner', 'owner.id', 'accreditations.owner_id')
    .leftJoin('users as reviewer', 'reviewer.id', 'accreditations.reviewed_by')
    .select([
      'accreditations.id',
      'accreditations.name',
      'accreditations.status',
      'accreditations.review_note',
      'accreditations.reviewed_at',
      'accreditations.version',
      'owner.id as owner_id',
      'owner.name as owner_name',
      'owner.email as owner_email',
      'reviewer.id as reviewer_id',
      'reviewer.name as reviewer_name',
    ]);
}

type ViewRow = Awaited<ReturnType<ReturnType<typeof viewQuery>['executeTakeFirstOrThrow']>>;

function toApiAccreditation(row: ViewRow): ApiAccreditation {
  const path = entityPath('Accreditation', row.id);
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    review_note: row.review_note,
    reviewed_at: row.reviewed_at === null ? null : new Date(row.reviewed_at).toISOString(),
    reviewed_by: row.reviewer_id === null ? null : { id: row.reviewer_id, name: row.reviewer_name! },
    owner: { id: row.owner_id, name: row.owner_name, email: row.owner_email },
    etag: accreditationEtag(row),
    links: { assets: `${path}/assets`, history: `${path}/history` },
  };
}

/** An accreditation with its review state, owner and reviewer; it must exist. */
export async function accreditationView(db: Kysely<Database>, id: number): Promise<ApiAccreditation> {
  return toApiAccreditation(
    await viewQuery(db).where('accreditations.id', '=', id).executeTakeFirstOrThrow(),
  );
}

/** A new investor's accreditation, waiting for their documents and an admin's decision. */
export async function openAccreditation(
  db: Kysely<Database>,
  owner: { id: number; name: string },
  now = Date.now(),
): Promise<{ id: number; name: string }> {
  const name = `Accreditation of ${owner.name}`;
  const { id } = await db
    .insertInto('accreditations')
    .values({ owner_id: owner.id, name, status: 'pending', created_at: now })
    .returning('id')
    .executeTakeFirstOrThrow();
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
  db: Kysely<Database>,
  status: AccreditationListStatus,
  page: { after?: number[]; limit: number },
): Promise<Page<ApiAccreditation>> {
  let query = viewQuery(db).limit(page.limit + 1);
  if (status === 'pending') {
    query = query.where('accreditations.status', '=', 'pending').orderBy('accreditations.id');
    if (page.after) query = query.where('accreditations.id', '>', page.after[0]!);
  } else {
    query = query
      .where('accreditations.status', 'in', status === 'decided' ? ['approved', 'rejected'] : [status])
      .orderBy('accreditations.reviewed_at', 'desc')
      .orderBy('accreditations.id', 'desc');
    if (page.after) {
      const [at, id] = page.after as [number, number];
      query = query.where((eb) =>
        eb.or([
          eb('accreditations.reviewed_at', '<', at),
          eb.and([eb('accreditations.reviewed_at', '=', at), eb('accreditations.id', '<', id)]),
        ]),
      );
    }
  }
  const { items, nextCursor } = pageOf(await query.execute(), page.limit, accreditationList(status), (row) =>
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
  db: Kysely<Database>,
  id: number,
  decision: { status: 'approved' | 'rejected'; note: string | null },
  reviewerId: number,
  at: number,
  ifMatch: string | undefined,
): Promise<ApiAccreditation> {
  return db.transaction().execute(async (trx) => {
    const current = await trx
      .selectFrom('accreditations')
      .select(['id', 'status', 'review_note', 'version'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    checkIfMatch(
      ifMatch,
      accreditationEtag(current),
      'This accreditation changed since you read it (decided by someone else, or the investor uploaded a file); reload it and decide again.',
    );
    if (current.status !== decision.status || current.review_note !== decision.note) {
      await trx
        .updateTable('accreditations')
        .set({
          status: decision.status,
          review_note: decision.note,
          reviewed_by: reviewerId,
          reviewed_at: at,
          version: current.version + 1,
        })
        .where('id', '=', id)
        .execute();
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
  trx: Kysely<Database>,
  change: { before?: AssetRow; after?: AssetRow; actorId: number; at: number },
): Promise<void> {
  const file = change.after ?? change.before!;
  if (file.assetable_type !== 'Accreditation' || file.thumbnail_of !== null) return;
  await appendHistory(trx, fileHistoryEntries(change.before, change.after, change.actorId, change.at));
  if (change.before) return;
  const reopened = await trx
    .updateTable('accreditations')
    .set((eb) => ({
      status: 'pending',
      review_note: null,
      reviewed_by: null,
      reviewed_at: null,
      version: eb('version', '+', 1),
    }))
    .where('id', '=', file.assetable_id)
    .where('status', '=', 'rejected')
    .executeTakeFirst();
  if (reopened.numUpdatedRows > 0n) {
    await appendHistory(trx, [
      { accreditation_id: file.assetable_id, at: change.at, actor_id: change.actorId, action: 'reopened' },
    ]);
  }
}
