import { type Kysely, sql } from 'kysely';
import { byteCountType, type Dialect, generatedId } from '../dialect';

export async function up(db: Kysely<unknown>, dialect: Dialect) {
  await db.schema
    .createTable('assets')
    .addColumn('id', 'integer', generatedId(dialect))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addColumn('assetable_type', 'text', (c) => c.notNull())
    .addColumn('assetable_id', 'integer', (c) => c.notNull())
    .addColumn('blob_key', 'text', (c) => c.notNull().unique())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('size', byteCountType(dialect), (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('width', 'integer')
    .addColumn('height', 'integer')
    .addColumn('meta', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('private', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`private in (0, 1)`),
    )
    // A thumbnail is an asset of its own that points at its parent; it is deleted with it.
    .addColumn('thumbnail_of', 'integer', (c) => c.references('assets.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .addColumn('created_by', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('assets_by_assetable')
    .on('assets')
    .columns(['assetable_type', 'assetable_id'])
    .execute();
  await db.schema.createIndex('assets_by_parent').on('assets').column('thumbnail_of').execute();

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('request_hash', 'text')
    .addColumn('status', 'integer')
    .addColumn('response', 'text')
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('idempotency_keys_pk', ['user_id', 'key'])
    .execute();
}
