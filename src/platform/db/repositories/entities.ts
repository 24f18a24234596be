import { type ExpressionBuilder, type Insertable, sql } from 'kysely';
import type { AccreditationListStatus, RejectionReason } from '../../../shared/api/review';
import type { AssetableType } from '../../../shared/api/me';
import type { DB } from '../database';
import type { AccreditationDecisionFilesTable, AccreditationHistoryTable, Database } from '../schema';

/**
 * Every query of the entities aggregate: the assetable entities (users as entities, products with
 * their investments and team members, accreditations, indications of interest) and the review of
 * accreditations with its history. Functions that take part in a transaction take it as `db`.
 */

// Any assetable entity

/** An assetable entity's id, name and owner (a team member is owned through its product). */
export async function entityWithOwner(
  db: DB,
  type: AssetableType,
  id: number,
): Promise<{ id: number; name: string; ownerId: number } | undefined> {
  switch (type) {
    case 'User':
      return db
        .selectFrom('users')
        .select(['id', 'name', 'id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
    case 'Product':
      return db
        .selectFrom('products')
        .select(['id', 'name', 'owner_id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
    case 'Investment':
      return db
        .selectFrom('investments')
        .select(['id', 'name', 'owner_id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
    case 'TeamMember':
      return db
        .selectFrom('team_members')
        .innerJoin('products', 'products.id', 'team_members.product_id')
        .select(['team_members.id', 'team_members.name', 'products.owner_id as ownerId'])
        .where('team_members.id', '=', id)
        .executeTakeFirst();
    case 'Accreditation':
      return db
        .selectFrom('accreditations')
        .select(['id', 'name', 'owner_id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
    case 'IndicationOfInterest':
      return db
        .selectFrom('indications_of_interest')
        .select(['id', 'name', 'owner_id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
  }
}

/**
 * The owner of the entity an `assets` row belongs to, as one SQL expression (null when the entity
 * does not exist): the owners of `entityWithOwner`, for reads that fetch an asset and check access
 * at once.
 */
export function assetableOwnerId(eb: ExpressionBuilder<Database, 'assets'>) {
  const type = 'assets.assetable_type' as const;
  const id = 'assets.assetable_id' as const;
  // The type names are written into the SQL rather than bound: six fewer parameters per read.
  const is = (name: AssetableType) => eb(type, '=', sql.lit(name));
  return eb
    .case()
    .when(is('User'))
    .then(eb.selectFrom('users').select('users.id').whereRef('users.id', '=', id))
    .when(is('Product'))
    .then(eb.selectFrom('products').select('products.owner_id').whereRef('products.id', '=', id))
    .when(is('Investment'))
    .then(eb.selectFrom('investments').select('investments.owner_id').whereRef('investments.id', '=', id))
    .when(is('TeamMember'))
    .then(
      eb
        .selectFrom('team_members')
        .innerJoin('products', 'products.id', 'team_members.product_id')
        .select('products.owner_id')
        .whereRef('team_members.id', '=', id),
    )
    .when(is('Accreditation'))
    .then(
      eb
        .selectFrom('accreditations')
        .select('accreditations.owner_id')
        .whereRef('accreditations.id', '=', id),
    )
    .when(is('IndicationOfInterest'))
    .then(
      eb
        .selectFrom('indications_of_interest')
        .select('indications_of_interest.owner_id')
        .whereRef('indications_of_interest.id', '=', id),
    )
    .end();
}

// Products, their investments and team members

/**
 * One page of products, newest first by id, and one row more than the page (whether another
 * follows); only `ownerId`'s when given; `before` is the id of the last row of the page before.
 */
export function productPage(db: DB, page: { ownerId?: number; before?: number; limit: number }) {
  let query = db
    .selectFrom('products')
    .select(['id', 'name', 'owner_id'])
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
  if (page.ownerId !== undefined) query = query.where('owner_id', '=', page.ownerId);
  if (page.before !== undefined) query = query.where('id', '<', page.before);
  return query.execute();
}

/** A product's investments (with their owners, to check access) and team members, by id. */
export async function productParts(db: DB, productId: number) {
  const [investments, teamMembers] = await Promise.all([
    db
      .selectFrom('investments')
      .select(['id', 'name', 'owner_id'])
      .where('product_id', '=', productId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('team_members')
      .select(['id', 'name'])
      .where('product_id', '=', productId)
      .orderBy('id')
      .execute(),
  ]);
  return { investments, teamMembers };
}

/** The product an investment or team member belongs to; the part must exist. */
export function productOf(db: DB, part: 'investments' | 'team_members', id: number) {
  return db
    .selectFrom(part)
    .innerJoin('products', 'products.id', `${part}.product_id`)
    .select(['products.id', 'products.name'])
    .where(`${part}.id`, '=', id)
    .executeTakeFirstOrThrow();
}

export async function insertProduct(
  db: DB,
  product: { ownerId: number; name: string; createdAt: number },
): Promise<number> {
  const { id } = await db
    .insertInto('products')
    .values({ owner_id: product.ownerId, name: product.name, created_at: product.createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function insertInvestment(
  db: DB,
  investment: { productId: number; ownerId: number; name: string; createdAt: number },
): Promise<number> {
  const { id } = await db
    .insertInto('investments')
    .values({
      product_id: investment.productId,
      owner_id: investment.ownerId,
      name: investment.name,
      created_at: investment.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function insertTeamMember(
  db: DB,
  member: { productId: number; name: string; createdAt: number },
): Promise<number> {
  const { id } = await db
    .insertInto('team_members')
    .values({ product_id: member.productId, name: member.name, created_at: member.createdAt })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function insertIndicationOfInterest(
  db: DB,
  indication: { ownerId: number; productId: number | null; name: string; createdAt: number },
) {
  await db
    .insertInto('indications_of_interest')
    .values({
      owner_id: indication.ownerId,
      product_id: indication.productId,
      name: indication.name,
      created_at: indication.createdAt,
    })
    .execute();
}

// Accreditations and their review

/** An accreditation with its review state, its owner and its reviewer (if any). */
function accreditationViewQuery(db: DB) {
  return db
    .selectFrom('accreditations')
    .innerJoin('users as owner', 'owner.id', 'accreditations.owner_id')
    .leftJoin('users as reviewer', 'reviewer.id', 'accreditations.reviewed_by')
    .select([
      'accreditations.id',
      'accreditations.name',
      'accreditations.status',
      'accreditations.review_note',
      'accreditations.review_reason',
      'accreditations.reviewed_at',
      'accreditations.version',
      'accreditations.address_on_licence',
      'accreditations.submitted_at',
      'owner.id as owner_id',
      'owner.name as owner_name',
      'owner.email as owner_email',
      'reviewer.id as reviewer_id',
      'reviewer.name as reviewer_name',
    ]);
}

export type AccreditationViewRow = Awaited<
  ReturnType<ReturnType<typeof accreditationViewQuery>['executeTakeFirstOrThrow']>
>;

/** An accreditation with its review state, owner and reviewer; it must exist. */
export function accreditationViewRow(db: DB, id: number): Promise<AccreditationViewRow> {
  return accreditationViewQuery(db).where('accreditations.id', '=', id).executeTakeFirstOrThrow();
}

/** Decisions of the history: what `last_decision` and the retention look for. */
const decisionActions = ['approved', 'rejected'] as const;

/**
 * `q` of the admins' list as a LIKE pattern: any part of the text, its own `%`, `_` and `\`
 * taken literally, lower-cased (both sides are; SQLite's LIKE ignores ASCII case, PostgreSQL's
 * does not).
 */
const containsPattern = (text: string) => `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * One page of the admins' list, and one row more than the page (whether another follows).
 * Waiting ones (`pending`) by the time they were sent, oldest first; `documents_needed` by id,
 * oldest first; decided ones newest decision first, by decision time and id. Keyset paging: `after`
 * is the sort key of the last row of the page before, so that rows added meanwhile never shift a
 * page. `q` keeps those whose owner's name or email contains it, in any case.
 */
export function accreditationPageRows(
  db: DB,
  status: AccreditationListStatus,
  page: { after?: number[]; limit: number; q?: string },
): Promise<AccreditationViewRow[]> {
  let query = accreditationViewQuery(db).limit(page.limit + 1);
  if (page.q) {
    const pattern = containsPattern(page.q);
    query = query.where((eb) =>
      eb.or([
        eb(sql`lower(${sql.ref('owner.name')})`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(${sql.ref('owner.email')})`, 'like', sql`${pattern} escape '\\'`),
      ]),
    );
  }
  if (status === 'pending') {
    query = query
      .where('accreditations.status', '=', 'pending')
      .orderBy('accreditations.submitted_at')
      .orderBy('accreditations.id');
    if (page.after) {
      const [at, id] = page.after as [number, number];
      query = query.where((eb) =>
        eb.or([
          eb('accreditations.submitted_at', '>', at),
          eb.and([eb('accreditations.submitted_at', '=', at), eb('accreditations.id', '>', id)]),
        ]),
      );
    }
  } else if (status === 'documents_needed') {
    query = query.where('accreditations.status', '=', 'documents_needed').orderBy('accreditations.id');
    if (page.after) query = query.where('accreditations.id', '>', page.after[0]!);
  } else {
    query = query
      .where('accreditations.status', 'in', status === 'decided' ? [...decisionActions] : [status])
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
  return query.execute();
}

/** How many accreditations there are in each status, over all of them. */
export async function accreditationCounts(db: DB) {
  const rows = await db
    .selectFrom('accreditations')
    .select((eb) => ['status', eb.fn.countAll<number | string>().as('n')])
    .groupBy('status')
    .execute();
  const counts = { documents_needed: 0, pending: 0, approved: 0, rejected: 0 };
  // PostgreSQL's count is a bigint, which the driver hands over as a string.
  for (const row of rows) counts[row.status] = Number(row.n);
  return counts;
}

/**
 * The files of some accreditations (not thumbnails), private ones included, oldest first: what
 * their requirements are met by and what a decision is made on.
 */
export function accreditationFiles(db: DB, accreditationIds: number[]) {
  if (accreditationIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('assets')
    .select(['id', 'assetable_id', 'name', 'sha256', 'file_type', 'meta', 'quality'])
    .where('assetable_type', '=', 'Accreditation')
    .where('assetable_id', 'in', accreditationIds)
    .where('thumbnail_of', 'is', null)
    .orderBy('id')
    .execute();
}

/** The newest decision of each of some accreditations that has one, with who made it. */
export function lastDecisionRows(db: DB, accreditationIds: number[]) {
  if (accreditationIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('accreditation_history as h')
    .innerJoin('users', 'users.id', 'h.actor_id')
    .select([
      'h.id',
      'h.accreditation_id',
      'h.action',
      'h.at',
      'h.note',
      'h.reason',
      'users.id as actor_id',
      'users.name as actor_name',
    ])
    .where('h.accreditation_id', 'in', accreditationIds)
    .where((eb) =>
      eb(
        'h.id',
        '=',
        eb
          .selectFrom('accreditation_history as newer')
          .select((e) => e.fn.max('newer.id').as('id'))
          .whereRef('newer.accreditation_id', '=', 'h.accreditation_id')
          .where('newer.action', 'in', [...decisionActions]),
      ),
    )
    .execute();
}

/** The files recorded with some decisions (history entries), by asset id. */
export function decisionFileRows(db: DB, historyIds: number[]) {
  if (historyIds.length === 0) return Promise.resolve([]);
  return db
    .selectFrom('accreditation_decision_files')
    .select(['history_id', 'asset_id', 'name', 'sha256', 'file_type', 'quality_issues'])
    .where('history_id', 'in', historyIds)
    .orderBy('asset_id')
    .execute();
}

/** The files a decision was made on, recorded with its history entry (append-only, like it). */
export async function insertDecisionFiles(db: DB, files: Insertable<AccreditationDecisionFilesTable>[]) {
  if (files.length > 0) await db.insertInto('accreditation_decision_files').values(files).execute();
}

/** The newest decision that names an asset among its files, if any: the asset is then retained. */
export function retainingDecision(db: DB, assetId: number) {
  return db
    .selectFrom('accreditation_decision_files as f')
    .innerJoin('accreditation_history as h', 'h.id', 'f.history_id')
    .select(['h.action', 'h.at'])
    .where('f.asset_id', '=', assetId)
    .orderBy('h.id', 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function insertAccreditation(
  db: DB,
  accreditation: { ownerId: number; name: string; createdAt: number },
): Promise<number> {
  const { id } = await db
    .insertInto('accreditations')
    .values({
      owner_id: accreditation.ownerId,
      name: accreditation.name,
      status: 'documents_needed',
      created_at: accreditation.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/**
 * An accreditation's review state as a decision sees it (it must exist), locked until the decision's
 * transaction ends: two decisions sent at once are taken one after the other, so that the second
 * meets the first one's version (412 to its If-Match) instead of both passing the check. A no-op
 * UPDATE takes the row's lock on PostgreSQL; SQLite has one writer at a time anyway (and no FOR UPDATE).
 */
export async function lockedAccreditationReviewState(db: DB, id: number) {
  await db
    .updateTable('accreditations')
    .set((eb) => ({ version: eb.ref('version') }))
    .where('id', '=', id)
    .execute();
  return db
    .selectFrom('accreditations')
    .select(['id', 'status', 'review_note', 'review_reason', 'address_on_licence', 'version'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** An admin's decision, as the new review state of version `version`. */
export async function recordDecision(
  db: DB,
  id: number,
  decision: {
    status: 'approved' | 'rejected';
    reason: RejectionReason | null;
    note: string | null;
    reviewerId: number;
    at: number;
    version: number;
  },
) {
  await db
    .updateTable('accreditations')
    .set({
      status: decision.status,
      review_reason: decision.reason,
      review_note: decision.note,
      reviewed_by: decision.reviewerId,
      reviewed_at: decision.at,
      version: decision.version,
    })
    .where('id', '=', id)
    .execute();
}

/** No current decision: what every status but approved and rejected has. */
const noDecision = { review_note: null, review_reason: null, reviewed_by: null, reviewed_at: null };

/**
 * The owner sends an accreditation for review: it waits in the queue from `at` (a new version, no
 * current decision).
 */
export async function recordSubmission(db: DB, id: number, at: number) {
  await db
    .updateTable('accreditations')
    .set((eb) => ({ ...noDecision, status: 'pending', submitted_at: at, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/** The owner's answer about the address on the licence (a new version: the requirements change). */
export async function recordAddressOnLicence(db: DB, id: number, addressOnLicence: boolean) {
  await db
    .updateTable('accreditations')
    .set((eb) => ({ address_on_licence: addressOnLicence ? 1 : 0, version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .execute();
}

/**
 * Puts a decided accreditation back to `documents_needed` (a new version, no current decision; the
 * decision stays in the history): answers whether it was decided. Conditional on the status in the
 * UPDATE itself, so that a decision made meanwhile is never undone by an upload that started before.
 */
export async function reopenIfDecided(db: DB, id: number): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('accreditations')
    .set((eb) => ({ ...noDecision, status: 'documents_needed', version: eb('version', '+', 1) }))
    .where('id', '=', id)
    .where('status', 'in', [...decisionActions])
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

// The history of accreditations: append-only (the database refuses UPDATE and DELETE, migration 0003)

/** Entries of the changes a transaction makes, appended in it: a change and its entries commit together. */
export async function appendHistory(db: DB, entries: Insertable<AccreditationHistoryTable>[]) {
  // No statement for no entries: an INSERT needs at least one row.
  if (entries.length > 0) await db.insertInto('accreditation_history').values(entries).execute();
}

/** One entry, answering its id (a decision's files name it). */
export async function appendHistoryEntry(db: DB, entry: Insertable<AccreditationHistoryTable>) {
  const { id } = await db
    .insertInto('accreditation_history')
    .values(entry)
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/**
 * One page of an accreditation's history, newest first by id (entries of one transaction share a
 * time, and ids keep their order), and one row more than the page (whether another follows), with
 * each entry's actor. `existing_asset_id` is the file's id only while that file still exists.
 */
export function historyPageRows(db: DB, accreditationId: number, page: { before?: number; limit: number }) {
  let query = db
    .selectFrom('accreditation_history as h')
    .innerJoin('users', 'users.id', 'h.actor_id')
    .leftJoin('assets', 'assets.id', 'h.asset_id')
    .select([
      'h.id',
      'h.at',
      'h.action',
      'h.note',
      'h.reason',
      'h.file_name',
      'h.file_previous_name',
      'h.file_type',
      'assets.id as existing_asset_id',
      'users.id as actor_id',
      'users.name as actor_name',
      'users.role as actor_role',
    ])
    .where('h.accreditation_id', '=', accreditationId)
    .orderBy('h.id', 'desc')
    .limit(page.limit + 1);
  if (page.before !== undefined) query = query.where('h.id', '<', page.before);
  return query.execute();
}
