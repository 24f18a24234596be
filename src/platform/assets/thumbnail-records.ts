import { sql, type Transaction } from 'kysely';
import type { PlatformContext } from '../context';
import type { AssetRow, Database } from '../db/schema';
import { thumbnailName } from '../media/pdf-thumbnails';

type Store = Pick<PlatformContext, 'db' | 'clock'>;

/**
 * The rows of PDF thumbnails (decisions.md): an Asset of its own with its parent's assetable, file
 * type and privacy; `thumbnail_of` keeps it out of entity listings, makes it `thumbifiable: false`
 * and deletes it with its parent. It is reserved *pending* with its parent, so that the 201 carries
 * `thumbnail_id`, and completed (or dropped) once its PNG is made after the answer.
 */

/**
 * Inserts a pending thumbnail for `parent`, in the transaction that inserts the parent: its id is
 * the parent's `thumbnail_id` from the start; `blobKey` (reserved from the blob store) holds nothing
 * until the PNG is committed under it. Answers its id.
 */
export async function reserveThumbnailRow(
  trx: Transaction<Database>,
  parent: AssetRow,
  blobKey: string,
): Promise<number> {
  const row = await trx
    .insertInto('assets')
    .values({
      name: thumbnailName(parent.name),
      file_type: parent.file_type,
      assetable_type: parent.assetable_type,
      assetable_id: parent.assetable_id,
      blob_key: blobKey,
      content_type: 'image/png',
      size: 0,
      sha256: '',
      width: null,
      height: null,
      meta: '{}',
      private: parent.private,
      thumbnail_of: parent.id,
      pending: 1,
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
export async function pendingThumbnailJob(ctx: Store, id: number) {
  return ctx.db
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

/** Counts a render about to begin; answers the count, or undefined when the thumbnail is gone or made. */
export async function countRenderAttempt(ctx: Store, id: number): Promise<number | undefined> {
  const row = await ctx.db
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
 * changes). False when the row is gone (its parent was deleted meanwhile): the caller removes the PNG.
 */
export async function completeThumbnailRow(
  ctx: Store,
  id: number,
  made: { size: number; sha256: string; width: number; height: number },
): Promise<boolean> {
  const { numUpdatedRows } = await ctx.db
    .updateTable('assets')
    .set((eb) => ({
      ...made,
      pending: 0,
      version: eb('version', '+', 1),
      updated_at: ctx.clock(),
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
export async function dropPendingThumbnail(ctx: Store, id: number): Promise<boolean> {
  const { numDeletedRows } = await ctx.db
    .deleteFrom('assets')
    .where('id', '=', id)
    .where('pending', '=', 1)
    .executeTakeFirst();
  return numDeletedRows > 0n;
}

/** Every thumbnail still pending (a stop or crash came before it was made), oldest first. */
export async function pendingThumbnailIds(ctx: Store): Promise<number[]> {
  const rows = await ctx.db
    .selectFrom('assets')
    .select('id')
    // A literal, not a parameter: SQLite uses the partial index `assets_pending` only then.
    .where(sql<boolean>`pending = 1`)
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}
