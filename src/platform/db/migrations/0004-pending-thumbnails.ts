import { type Kysely, sql } from 'kysely';

/**
 * PDF thumbnails are made after the upload's answer (performance issue: the 201 waited for pdf.js).
 * The thumbnail's row is inserted with its parent, so the 201 still carries `thumbnail_id`, but its
 * PNG comes later: until then the row is `pending` and its `blob_key` (reserved from the blob store)
 * holds nothing. Every read path treats a pending row explicitly; no other row is ever without its file.
 */
export async function up(db: Kysely<unknown>) {
  await db.schema
    .alterTable('assets')
    .addColumn('pending', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(0)
        .check(sql`pending in (0, 1)`),
    )
    .execute();
  // Renders begun for a pending thumbnail, counted before each one starts: a PDF that takes the whole
  // process down (a crash in native code) is given up after a few restarts instead of at every start.
  await db.schema
    .alterTable('assets')
    .addColumn('render_attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // The start-up scan for pending thumbnails reads only them, however many assets there are.
  await sql`create index assets_pending on assets (id) where pending = 1`.execute(db);
}
