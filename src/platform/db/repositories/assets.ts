import { type ExpressionBuilder, type Insertable, sql } from 'kysely';
import type { AssetableType } from '../../../shared/api/me';
import { type DB, preparedRead } from '../database';
import type { AssetRow, AssetsTable, Database } from '../schema';
import { assetableOwnerId } from './entities';

/**
 * Every query of the assets aggregate: assets and their PDF thumbnails, and the Idempotency-Keys of
 * the uploads that create them. Functions that take part in a transaction take it as `db`.
 */

// Reads. The two by id are the API's hot path: on SQLite each runs as a statement prepared once
// (`preparedRead`); on PostgreSQL, and inside a transaction, as any other query.

/** The id of an asset's thumbnail, as a column of a read of `assets`. */
const thumbnailIdColumn = (eb: ExpressionBuilder<Database, 'assets'>) =>
  eb
    .selectFrom('assets as t')
    .select('t.id')
    .whereRef('t.thumbnail_of', '=', 'assets.id')
    .limit(1)
    .as('thumbnail_id');

/** An asset row with the id of its thumbnail, in one read (file delivery). */
export const assetById = preparedRead((db: DB, id: number) =>
  db.selectFrom('assets').selectAll('assets').select(thumbnailIdColumn).where('assets.id', '=', id),
);

/**
 * An asset row with the id of its thumbnail and the owner of its entity (`owner_id`, null when the
 * entity is gone), in one read: the hot path of GET /v2/core/assets/:id and its download_url.
 */
export const assetWithOwnerById = preparedRead((db: DB, id: number) =>
  db
    .selectFrom('assets')
    .selectAll('assets')
    .select((eb) => [thumbnailIdColumn(eb), assetableOwnerId(eb).as('owner_id')])
    .where('assets.id', '=', id),
);

export async function thumbnailIdOf(db: DB, id: number): Promise<number | null> {
  const row = await db.selectFrom('assets').select('id').where('thumbnail_of', '=', id).executeTakeFirst();
  return row?.id ?? null;
}

/** The asset whose bytes are stored under this key, if any: what the sweeps keep, and by which crop. */
export function assetByBlobKey(db: DB, blobKey: string) {
  return db
    .selectFrom('assets')
    .select(['id', 'meta', 'content_type'])
    .where('blob_key', '=', blobKey)
    .executeTakeFirst();
}

/**
 * The logos of these products (thumbnails aside), newest first: each with its privacy, for the
 * caller to pick the newest one the reader may see (a single-file slot's newest file is the one in use).
 */
export async function productLogos(db: DB, productIds: number[]) {
  // No query for no products: `IN ()` is no SQL.
  if (productIds.length === 0) return [];
  return db
    .selectFrom('assets')
    .select(['id', 'assetable_id', 'private'])
    .where('assetable_type', '=', 'Product')
    .where('assetable_id', 'in', productIds)
    .where('file_type', '=', 'logo')
    .where('thumbnail_of', 'is', null)
    .orderBy('id', 'desc')
    .execute();
}

type EntityRef = { type: AssetableType; id: number };
type AssetPageRequest = { before?: number; limit: number; withPrivate: boolean; fileType?: string };

/**
 * One page of an entity's own assets (thumbnails are not listed: they hang off their parent), newest
 * first by id, each with the id of its thumbnail, and one row more than the page: whether another
 * page follows, without counting. Which assets the caller may see is part of the query, so a page is
 * full whatever is hidden and the next one starts right after its last row: `before` is the id of
 * that row (ids only grow; one deleted meanwhile still marks the place). `fileType` narrows the list
 * to one file type (a single-file slot's newest file: `limit` 1).
 *
 * The index `assets_by_entity` (assetable_type, assetable_id, id) answers it without sorting: the
 * query reads the page's rows and stops, however many assets the entity has (measured: S11 in
 * docs/performance.md; the plan is checked in entity-asset-pages.test.ts).
 */
export function entityAssetPage(db: DB, entity: EntityRef, page: AssetPageRequest) {
  return entityAssetPageQuery(db, entity, page).execute();
}

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
  return query.orderBy('assets.id', 'desc').limit(page.limit + 1);
}

// Writes

export type NewAsset = Omit<Insertable<AssetsTable>, 'id' | 'thumbnail_of' | 'pending' | 'render_attempts'>;

export function insertAsset(db: DB, asset: NewAsset): Promise<AssetRow> {
  return db.insertInto('assets').values(asset).returningAll().executeTakeFirstOrThrow();
}

/**
 * Applies changes to an asset if it is still at `version`, bumping it: undefined when another
 * update came first. Compare-and-set in the UPDATE itself, so that of two concurrent updates with
 * the same If-Match only one wins, on either engine.
 */
export function updateAssetAtVersion(
  db: DB,
  id: number,
  version: number,
  changes: { name?: string; private?: boolean; meta?: Record<string, unknown> },
  at: number,
): Promise<AssetRow | undefined> {
  return db
    .updateTable('assets')
    .set({
      ...(changes.name !== undefined ? { name: changes.name } : {}),
      ...(changes.private !== undefined ? { private: changes.private ? 1 : 0 } : {}),
      ...(changes.meta !== undefined ? { meta: JSON.stringify(changes.meta) } : {}),
      version: version + 1,
      updated_at: at,
    })
    .where('id', '=', id)
    .where('version', '=', version)
    .returningAll()
    .executeTakeFirst();
}

/** A thumbnail shares its parent's privacy (decisions.md). */
export async function setThumbnailPrivacy(db: DB, parentId: number, isPrivate: boolean) {
  await db
    .updateTable('assets')
    .set({ private: isPrivate ? 1 : 0 })
    .where('thumbnail_of', '=', parentId)
    .execute();
}

export async function thumbnailBlobKeys(db: DB, parentId: number): Promise<string[]> {
  const rows = await db
    .selectFrom('assets')
    .select('blob_key')
    .where('thumbnail_of', '=', parentId)
    .execute();
  return rows.map((row) => row.blob_key);
}

/**
 * Deletes an asset's row, with `expectedVersion` only if it is still at that version (an If-Match,
 * checked in the DELETE itself, so that a concurrent update wins or loses as a whole): answers
 * whether this call deleted it. Its thumbnail goes with `deleteThumbnailsOf`.
 */
export async function deleteAsset(db: DB, id: number, expectedVersion?: number): Promise<boolean> {
  let query = db.deleteFrom('assets').where('id', '=', id);
  if (expectedVersion !== undefined) query = query.where('version', '=', expectedVersion);
  const { numDeletedRows } = await query.executeTakeFirst();
  return numDeletedRows > 0n;
}

export async function deleteThumbnailsOf(db: DB, parentId: number) {
  await db.deleteFrom('assets').where('thumbnail_of', '=', parentId).execute();
}

// PDF thumbnails

/**
 * The rows of PDF thumbnails (decisions.md): an Asset of its own with its parent's assetable, file
 * type and privacy; `thumbnail_of` keeps it out of entity listings, makes it `thumbifiable: false`
 * and deletes it with its parent. It is reserved *pending* with its parent, so that the 201 carries
 * `thumbnail_id`, and completed (or dropped) once its PNG is made after the answer.
 *
 * `insertPendingThumbnail` runs in the transaction that inserts the parent: its id is the parent's
 * `thumbnail_id` from the start; `blobKey` (reserved from the blob store) holds nothing until the
 * PNG is committed under it. `renderBegun`: its render began with the upload, and counts as the
 * first attempt. Answers its id.
 */
export async function insertPendingThumbnail(
  db: DB,
  parent: AssetRow,
  thumbnail: { name: string; blobKey: string; renderBegun: boolean },
): Promise<number> {
  const row = await db
    .insertInto('assets')
    .values({
      name: thumbnail.name,
      file_type: parent.file_type,
      assetable_type: parent.assetable_type,
      assetable_id: parent.assetable_id,
      blob_key: thumbnail.blobKey,
      content_type: 'image/png',
      size: 0,
      sha256: '',
      width: null,
      height: null,
      meta: '{}',
      private: parent.private,
      thumbnail_of: parent.id,
      pending: 1,
      render_attempts: thumbnail.renderBegun ? 1 : 0,
      version: 1,
      created_by: parent.created_by,
      created_at: parent.created_at,
      updated_at: parent.updated_at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** What making a pending thumbnail needs: its reserved key, and where its parent's PDF is. */
export function pendingThumbnailJob(db: DB, id: number) {
  return db
    .selectFrom('assets as t')
    .innerJoin('assets as p', 'p.id', 't.thumbnail_of')
    .select([
      't.id',
      't.blob_key',
      't.render_attempts',
      'p.id as parent_id',
      'p.blob_key as parent_key',
      'p.size as parent_size',
    ])
    .where('t.id', '=', id)
    .where('t.pending', '=', 1)
    .executeTakeFirst();
}

/**
 * Counts a render about to begin; answers the count, or undefined when the thumbnail is gone or
 * made. Incremented in the database, so that renders begun by several instances are all counted.
 */
export async function countRenderAttempt(db: DB, id: number): Promise<number | undefined> {
  const row = await db
    .updateTable('assets')
    .set((eb) => ({ render_attempts: eb('render_attempts', '+', 1) }))
    .where('id', '=', id)
    .where('pending', '=', 1)
    .returning('render_attempts')
    .executeTakeFirst();
  return row?.render_attempts;
}

/**
 * The PNG is committed under the reserved key: the thumbnail is ready (a new version, so its ETag
 * changes). False when the row is gone (its parent was deleted meanwhile) or made already: only a
 * pending row is completed, so that the caller removes a PNG nobody will name.
 */
export async function completeThumbnail(
  db: DB,
  id: number,
  made: { size: number; sha256: string; width: number; height: number },
  at: number,
): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('assets')
    .set((eb) => ({
      ...made,
      pending: 0,
      version: eb('version', '+', 1),
      updated_at: at,
    }))
    .where('id', '=', id)
    .where('pending', '=', 1)
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

/**
 * No thumbnail can be made: the pending row goes, so the parent answers without `thumbnail_id`.
 * False when it was gone already.
 */
export async function dropPendingThumbnail(db: DB, id: number): Promise<boolean> {
  const { numDeletedRows } = await db
    .deleteFrom('assets')
    .where('id', '=', id)
    .where('pending', '=', 1)
    .executeTakeFirst();
  return numDeletedRows > 0n;
}

/** Every thumbnail still pending (a stop or crash came before it was made), oldest first. */
export async function pendingThumbnailIds(db: DB): Promise<number[]> {
  const rows = await db
    .selectFrom('assets')
    .select('id')
    // A literal, not a parameter: SQLite uses the partial index `assets_pending` only then.
    .where(sql<boolean>`pending = 1`)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

// Idempotency-Keys of uploads (assets/idempotency.ts says what they mean)

export async function deleteIdempotencyKeysBefore(db: DB, before: number) {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', before).execute();
}

/**
 * Claims a key not in use: answers whether this call did. An insert that does nothing on conflict,
 * so that of concurrent first requests with one key exactly one claims it, on either engine.
 */
export async function insertIdempotencyKey(
  db: DB,
  userId: number,
  key: string,
  at: number,
): Promise<boolean> {
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({ user_id: userId, key, created_at: at })
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return inserted.numInsertedOrUpdatedRows === 1n;
}

export function idempotencyKeyRow(db: DB, userId: number, key: string) {
  return db
    .selectFrom('idempotency_keys')
    .selectAll()
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .executeTakeFirstOrThrow();
}

/**
 * Takes over a key still in progress, claimed at `claimedAt`: answers whether this call did.
 * Compare-and-set on the old claim's time: of two retries, one takes the key over.
 */
export async function takeOverIdempotencyKey(
  db: DB,
  userId: number,
  key: string,
  claimedAt: number,
  at: number,
): Promise<boolean> {
  const taken = await db
    .updateTable('idempotency_keys')
    .set({ created_at: at })
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .where('request_hash', 'is', null)
    .where('created_at', '=', claimedAt)
    .executeTakeFirst();
  return taken.numUpdatedRows === 1n;
}

/**
 * Records the answer of the request that claimed the key at `claimedAt`: answers whether it still
 * held it. The claim is checked in the UPDATE itself, so that a request taken over meanwhile
 * records nothing.
 */
export async function recordIdempotentAnswer(
  db: DB,
  userId: number,
  key: string,
  claimedAt: number,
  answer: { requestHash: string; status: number; body: unknown },
): Promise<boolean> {
  const recorded = await db
    .updateTable('idempotency_keys')
    .set({ request_hash: answer.requestHash, status: answer.status, response: JSON.stringify(answer.body) })
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .where('request_hash', 'is', null)
    .where('created_at', '=', claimedAt)
    .executeTakeFirst();
  return recorded.numUpdatedRows === 1n;
}

/**
 * Frees a key still in progress, if the request that claimed it at `claimedAt` holds it yet:
 * answers whether this call did. A key another request took over meanwhile stays its.
 */
export async function releaseIdempotencyKey(
  db: DB,
  userId: number,
  key: string,
  claimedAt: number,
): Promise<boolean> {
  const { numDeletedRows } = await db
    .deleteFrom('idempotency_keys')
    .where('user_id', '=', userId)
    .where('key', '=', key)
    .where('request_hash', 'is', null)
    .where('created_at', '=', claimedAt)
    .executeTakeFirst();
  return numDeletedRows > 0n;
}

export function idempotencyKeysInProgress(db: DB) {
  return db
    .selectFrom('idempotency_keys')
    .select(['user_id', 'key', 'created_at'])
    .where('request_hash', 'is', null)
    .execute();
}
