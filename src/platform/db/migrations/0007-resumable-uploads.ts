import type { Kysely } from 'kysely';

/**
 * Resumable (tus) uploads of issue 32: one row per upload, written at its creation once its
 * metadata passed the checks of `POST /v2/core/assets`. It says whose the upload is (another
 * user's id answers 404), what asset its bytes become (the checked fields, as JSON), and, once made,
 * which asset that is, so that a repeated finish or a `GET` answers the same one. The bytes
 * themselves are the tus store's until the asset is made.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createTable('resumable_uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('size', 'bigint', (c) => c.notNull())
    .addColumn('fields', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    // No foreign key: an asset deleted later leaves its upload's row to expire like the others.
    .addColumn('asset_id', 'integer')
    .execute();
  // The sweep reads the expired ones only.
  await db.schema
    .createIndex('resumable_uploads_by_expiry')
    .on('resumable_uploads')
    .column('expires_at')
    .execute();
}
