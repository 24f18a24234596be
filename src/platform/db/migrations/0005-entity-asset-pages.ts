import type { Kysely } from 'kysely';

/**
 * An entity's assets are read a page at a time, newest first (issue 15: 10 000 assets on one product
 * made one 3 MB answer). The page query asks for one entity's rows in id order, from a given id on:
 * these indexes hold them in that order, so a page is read without sorting, however many assets the
 * entity has. SQLite puts the rowid (`id`) at the end of every index by itself; PostgreSQL needs it
 * named. The second serves a single-file slot's newest file (`?file_type=…&limit=1`) and a product's
 * newest logo.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema
    .createIndex('assets_by_entity')
    .on('assets')
    .columns(['assetable_type', 'assetable_id', 'id'])
    .execute();
  await db.schema
    .createIndex('assets_by_entity_file_type')
    .on('assets')
    .columns(['assetable_type', 'assetable_id', 'file_type', 'id'])
    .execute();
  // The first begins with its columns: keeping it would only cost writes.
  await db.schema.dropIndex('assets_by_assetable').execute();
}
