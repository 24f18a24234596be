import type { Kysely } from 'kysely';

/**
 * The quality of a licence or bill photo (issue 31), measured at upload: `{ok, issues, measures}` as
 * JSON text, on both engines. Null for every other file, for rows from before, and when the photo
 * could not be measured: the asset then answers without `quality`.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema.alterTable('assets').addColumn('quality', 'text').execute();
  // The issues a decision saw on each of its files, kept with them (JSON array; null: not checked),
  // so the history shows the flags the reviewer had in front of them, whatever is measured later.
  await db.schema.alterTable('accreditation_decision_files').addColumn('quality_issues', 'text').execute();
}
