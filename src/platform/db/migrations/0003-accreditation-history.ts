import { type Kysely, sql } from 'kysely';
import { type Dialect, generatedId } from '../dialect';

/**
 * `historyActions` of src/shared/api/review.ts as they were when this migration shipped (a migration
 * describes the schema as it was then, so it does not import them).
 */
const actions = [
  'approved',
  'rejected',
  'reopened',
  'file_uploaded',
  'file_renamed',
  'file_made_private',
  'file_made_public',
  'file_cropped',
  'file_meta_changed',
  'file_deleted',
];

export async function up(db: Kysely<unknown>, dialect: Dialect) {
  // Bumped at every change of the review state (a decision, a rejection answered by an upload): the
  // accreditation's ETag, so that a decision made on a stale page answers 412 instead of overriding.
  await db.schema
    .alterTable('accreditations')
    .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();

  await db.schema
    .createTable('accreditation_history')
    .addColumn('id', 'integer', generatedId(dialect))
    // No action on delete: an accreditation with a history cannot be deleted, nor a user who acted.
    .addColumn('accreditation_id', 'integer', (c) => c.notNull().references('accreditations.id'))
    .addColumn('at', 'bigint', (c) => c.notNull())
    .addColumn('actor_id', 'integer', (c) => c.notNull().references('users.id'))
    .addColumn('action', 'text', (c) =>
      c.notNull().check(sql`action in (${sql.join(actions.map((a) => sql.lit(a)))})`),
    )
    .addColumn('note', 'text')
    // The file as it was at the time. Deliberately no foreign key: the row outlives the file (a
    // foreign key would either forbid deleting the file or need the row changed), and asset ids are
    // never reused (AUTOINCREMENT), so a stale id can never name another file. Reads report the id
    // only while the file exists.
    .addColumn('asset_id', 'integer')
    .addColumn('file_name', 'text')
    .addColumn('file_previous_name', 'text')
    .addColumn('file_type', 'text')
    .addCheckConstraint(
      'accreditation_history_file',
      sql`(substr(action, 1, 5) = 'file_') = (asset_id is not null and file_name is not null and file_type is not null)`,
    )
    .execute();
  await db.schema
    .createIndex('accreditation_history_by_accreditation')
    .on('accreditation_history')
    .columns(['accreditation_id', 'id'])
    .execute();

  // Append-only below the code too: whatever runs SQL on this database (a bug, a script, a person at
  // the SQL prompt) cannot rewrite or remove what happened. Only DROP TABLE gets past this.
  if (dialect === 'postgres') {
    await sql`create function accreditation_history_append_only() returns trigger language plpgsql as $$
      begin raise exception 'accreditation_history is append-only'; end $$`.execute(db);
    await sql`create trigger accreditation_history_no_change before update or delete on accreditation_history
      for each row execute function accreditation_history_append_only()`.execute(db);
    // Row triggers do not see TRUNCATE.
    await sql`create trigger accreditation_history_no_truncate before truncate on accreditation_history
      for each statement execute function accreditation_history_append_only()`.execute(db);
  } else {
    await sql`create trigger accreditation_history_no_update before update on accreditation_history
      begin select raise(abort, 'accreditation_history is append-only'); end`.execute(db);
    await sql`create trigger accreditation_history_no_delete before delete on accreditation_history
      begin select raise(abort, 'accreditation_history is append-only'); end`.execute(db);
  }

  // Decisions made before the history existed are its first rows; earlier file changes were not kept.
  await sql`insert into accreditation_history (accreditation_id, at, actor_id, action, note)
    select id, reviewed_at, reviewed_by, status, review_note from accreditations
    where status in ('approved', 'rejected') and reviewed_at is not null and reviewed_by is not null
    order by reviewed_at, id`.execute(db);
}
