import { type ExpressionBuilder, type Insertable, sql } from 'kysely';
import type { AccreditationListStatus } from '../../../shared/api/review';
import type { AssetableType } from '../../../shared/api/me';
import type { DB } from '../database';
import type { AccreditationHistoryTable, Database } from '../schema';

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
) {
  await db
    .insertInto('investments')
    .values({
      product_id: investment.productId,
      owner_id: investment.ownerId,
      name: investment.name,
      created_at: investment.createdAt,
    })
    .execute();
}

export async function insertTeamMember(
  db: DB,
  member: { productId: number; name: string; createdAt: number },
) {
  await db
    .insertInto('team_members')
    .values({ product_id: member.productId, name: member.name, created_at: member.createdAt })
    .execute();
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
      'accreditations.reviewed_at',
      'accreditations.version',
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

/**
 * One page of the admins' list, and one row more than the page (whether another follows). Pending
 * ones by id, oldest accreditation first; decided ones newest decision first, by decision time and
 * id. Keyset paging: `after` is the sort key of the last row of the page before (its id, or its
 * decision time and id), so that rows added meanwhile never shift a page.
 */
export function accreditationPageRows(
  db: DB,
  status: AccreditationListStatus,
  page: { after?: number[]; limit: number },
): Promise<AccreditationViewRow[]> {
  let query = accreditationViewQuery(db).limit(page.limit + 1);
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
  return query.execute();
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
      status: 'pending',
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
    .select(['id', 'status', 'review_note', 'version'])
    .where('id', '=', id)
    .executeTakeFirstOrThrow();
}

/** An admin's decision, as the new review state of version `version`. */
export async function recordDecision(
  db: DB,
  id: number,
  decision: {
    status: 'approved' | 'rejected';
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
      review_note: decision.note,
      reviewed_by: decision.reviewerId,
      reviewed_at: decision.at,
      version: decision.version,
    })
    .where('id', '=', id)
    .execute();
}

/**
 * Puts a rejected accreditation back to pending (a new version, no decision): answers whether it
 * was rejected. Conditional on the status in the UPDATE itself, so that a decision made meanwhile
 * is never undone by an upload.
 */
export async function reopenIfRejected(db: DB, id: number): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('accreditations')
    .set((eb) => ({
      status: 'pending',
      review_note: null,
      reviewed_by: null,
      reviewed_at: null,
      version: eb('version', '+', 1),
    }))
    .where('id', '=', id)
    .where('status', '=', 'rejected')
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

// The history of accreditations: append-only (the database refuses UPDATE and DELETE, migration 0003)

/** Entries of the changes a transaction makes, appended in it: a change and its entries commit together. */
export async function appendHistory(db: DB, entries: Insertable<AccreditationHistoryTable>[]) {
  // No statement for no entries: an INSERT needs at least one row.
  if (entries.length > 0) await db.insertInto('accreditation_history').values(entries).execute();
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
