import type { Kysely } from 'kysely';

/**
 * The quality of a licence or bill photo (issue 31), measured at upload: `{ok, issues, measures}` as
 * JSON text, on both engines. Null for every other file, for rows from before, and when the photo
 * could not be measured: the asset then answers without `quality`.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema.alterTable('assets').addColumn('quality', 'text').execute();
}
