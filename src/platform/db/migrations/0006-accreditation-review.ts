import { type Kysely, sql } from 'kysely';
import { type Dialect, generatedId } from '../dialect';

/**
 * The accreditation review of issue 28 (decisions.md "Review and evidence"): an accreditation waits
 * for its documents (`documents_needed`) until its owner sends it for review; the owner says whether
 * the licence shows the current address; a rejection says why (`review_reason`); each decision keeps
 * the files it was made on (name, SHA-256 and type), which can then no longer be deleted.
 *
 * The lists below are the shared constants as they were when this migration shipped (a migration
 * describes the schema as it was then, so it does not import them).
 */
const statuses = ['documents_needed', 'pending', 'approved', 'rejected'];
const reasons = ['unreadable', 'expired', 'name_mismatch', 'unsigned', 'wrong_document', 'other'];
const actions = [
  'submitted',
  'approved',
  'rejected',
  'reopened',
  'address_changed',
  'file_uploaded',
  'file_renamed',
  'file_made_private',
  'file_made_public',
  'file_cropped',
  'file_meta_changed',
  'file_deleted',
];

const oneOf = (column: string, values: string[]) =>
  sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`;

export async function up(db: Kysely<unknown>, dialect: Dialect) {
  if (dialect === 'postgres') await widenPostgres(db);
  else await rebuildSqlite(db);

  // The files each decision was made on, as they were. The asset's foreign key is the retention
  // below the code: a file a decision names cannot be deleted (the API answers 409 before that).
  await db.schema
    .createTable('accreditation_decision_files')
    // No foreign key to the history: its rows are never removed (append-only), and one would make
    // PostgreSQL refuse a TRUNCATE of it for that reason before its append-only trigger says why.
    .addColumn('history_id', 'integer', (c) => c.notNull())
    .addColumn('accreditation_id', 'integer', (c) => c.notNull().references('accreditations.id'))
    .addColumn('asset_id', 'integer', (c) => c.notNull().references('assets.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('sha256', 'text', (c) => c.notNull())
    .addColumn('file_type', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('accreditation_decision_files_pk', ['history_id', 'asset_id'])
    .execute();
  // Whether an asset is retained, at each DELETE.
  await db.schema
    .createIndex('accreditation_decision_files_by_asset')
    .on('accreditation_decision_files')
    .column('asset_id')
    .execute();
  await appendOnly(db, dialect, 'accreditation_decision_files');

  await startStatuses(db);
}

/**
 * Where the accreditations waiting for a decision stand now: those whose documents meet what the
 * review asks (with the licence taken to show the address, the default) stay in the queue, waiting
 * since they were opened; the others wait for their documents. The rule as it was when this shipped.
 */
async function startStatuses(db: Kysely<unknown>) {
  const { rows } = await sql<{ id: number; file_type: string | null; meta: string | null }>`
    select accreditations.id, assets.file_type, assets.meta from accreditations
    left join assets on assets.assetable_type = 'Accreditation' and assets.assetable_id = accreditations.id
      and assets.thumbnail_of is null
    where accreditations.status = 'pending'`.execute(db);
  const files = new Map<number, { file_type: string; side: unknown }[]>();
  for (const row of rows) {
    const list = files.get(row.id) ?? [];
    files.set(row.id, list);
    if (row.file_type !== null)
      list.push({
        file_type: row.file_type,
        side: (JSON.parse(row.meta ?? '{}') as { side?: unknown }).side,
      });
  }
  const unmet = [...files].filter(([, list]) => {
    const letters = list.filter((f) => /^(executed_)?letter_of_accreditation$/.test(f.file_type));
    const licences = list.filter((f) => f.file_type === 'drivers_license');
    return letters.length === 0 || !(licences.length >= 2 || licences.some((f) => f.side === 'both'));
  });
  for (const [id] of unmet) {
    // The version (ETag) stays: a decision on it is refused as not sent for review anyway.
    await sql`update accreditations set status = 'documents_needed' where id = ${id}`.execute(db);
  }
  await sql`update accreditations set submitted_at = created_at where status = 'pending'`.execute(db);
}

/** PostgreSQL changes constraints and adds columns in place (and its migrations run in a transaction). */
async function widenPostgres(db: Kysely<unknown>) {
  // Column checks are named <table>_<column>_check by PostgreSQL (migrations 0001 and 0003).
  await sql`alter table accreditations drop constraint accreditations_status_check,
    add constraint accreditations_status_check check (${oneOf('status', statuses)}),
    alter column status set default 'documents_needed'`.execute(db);
  await sql`alter table accreditation_history drop constraint accreditation_history_action_check,
    add constraint accreditation_history_action_check check (${oneOf('action', actions)})`.execute(db);
  await addReviewColumns(db, 'accreditations');
  await db.schema
    .alterTable('accreditation_history')
    .addColumn('reason', 'text', (c) => c.check(oneOf('reason', reasons)))
    .execute();
}

/** The review's columns, added in place on PostgreSQL and made with the new tables on SQLite. */
async function addReviewColumns(db: Kysely<unknown>, accreditations: string) {
  await db.schema
    .alterTable(accreditations)
    .addColumn('address_on_licence', 'integer', (c) =>
      c
        .notNull()
        .defaultTo(1)
        .check(sql`address_on_licence in (0, 1)`),
    )
    .execute();
  await db.schema
    .alterTable(accreditations)
    .addColumn('review_reason', 'text', (c) => c.check(oneOf('review_reason', reasons)))
    .execute();
  await db.schema.alterTable(accreditations).addColumn('submitted_at', 'bigint').execute();
}

/**
 * SQLite cannot change a CHECK constraint: the two tables are made anew with the new ones and their
 * rows copied over, as SQLite's ALTER TABLE page says (foreign keys off meanwhile, checked before the
 * commit). Kysely runs SQLite's migrations outside a transaction, so this one brings its own: a
 * failure leaves the old tables as they were.
 */
async function rebuildSqlite(db: Kysely<unknown>) {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await sql`begin immediate`.execute(db);
    try {
      await rebuildAccreditations(db);
      await rebuildHistory(db);
      const { rows } = await sql`pragma foreign_key_check`.execute(db);
      if (rows.length > 0) throw new Error(`foreign keys broken by migration 0006: ${JSON.stringify(rows)}`);
      await sql`commit`.execute(db);
    } catch (error) {
      await sql`rollback`.execute(db);
      throw error;
    }
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

/** Makes `name` anew as `create` (the table under a temporary name), keeping its rows and id sequence. */
async function replaceTable(
  db: Kysely<unknown>,
  name: string,
  columns: string[],
  create: () => Promise<void>,
) {
  await create();
  const list = sql.join(columns.map((c) => sql.ref(c)));
  await sql`insert into ${sql.table(`${name}_new`)} (${list}) select ${list} from ${sql.table(name)}`.execute(
    db,
  );
  // AUTOINCREMENT's memory of the highest id ever given, so that no id of a deleted row comes back.
  await sql`delete from sqlite_sequence where name = ${`${name}_new`}`.execute(db);
  await sql`insert into sqlite_sequence (name, seq)
    select ${`${name}_new`}, seq from sqlite_sequence where name = ${name}`.execute(db);
  await sql`drop table ${sql.table(name)}`.execute(db);
  await sql`alter table ${sql.table(`${name}_new`)} rename to ${sql.table(name)}`.execute(db);
}

async function rebuildAccreditations(db: Kysely<unknown>) {
  const columns = [
    'id',
    'owner_id',
    'name',
    'status',
    'review_note',
    'reviewed_by',
    'reviewed_at',
    'created_at',
    'version',
  ];
  await replaceTable(db, 'accreditations', columns, async () => {
    await db.schema
      .createTable('accreditations_new')
      .addColumn('id', 'integer', generatedId('sqlite'))
      .addColumn('owner_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) =>
        c.notNull().defaultTo('documents_needed').check(oneOf('status', statuses)),
      )
      .addColumn('review_note', 'text')
      .addColumn('reviewed_by', 'integer', (c) => c.references('users.id'))
      .addColumn('reviewed_at', 'bigint')
      .addColumn('created_at', 'bigint', (c) => c.notNull())
      .addColumn('version', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
    await addReviewColumns(db, 'accreditations_new');
  });
  await db.schema.createIndex('accreditations_by_owner').on('accreditations').column('owner_id').execute();
}

async function rebuildHistory(db: Kysely<unknown>) {
  const columns = [
    'id',
    'accreditation_id',
    'at',
    'actor_id',
    'action',
    'note',
    'asset_id',
    'file_name',
    'file_previous_name',
    'file_type',
  ];
  await replaceTable(db, 'accreditation_history', columns, async () => {
    // As migration 0003 made it (see its comments), with the new actions and a rejection's reason.
    await db.schema
      .createTable('accreditation_history_new')
      .addColumn('id', 'integer', generatedId('sqlite'))
      .addColumn('accreditation_id', 'integer', (c) => c.notNull().references('accreditations.id'))
      .addColumn('at', 'bigint', (c) => c.notNull())
      .addColumn('actor_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('action', 'text', (c) => c.notNull().check(oneOf('action', actions)))
      .addColumn('note', 'text')
      .addColumn('asset_id', 'integer')
      .addColumn('file_name', 'text')
      .addColumn('file_previous_name', 'text')
      .addColumn('file_type', 'text')
      .addColumn('reason', 'text', (c) => c.check(oneOf('reason', reasons)))
      .addCheckConstraint(
        'accreditation_history_file',
        sql`(substr(action, 1, 5) = 'file_') = (asset_id is not null and file_name is not null and file_type is not null)`,
      )
      .execute();
  });
  await db.schema
    .createIndex('accreditation_history_by_accreditation')
    .on('accreditation_history')
    .columns(['accreditation_id', 'id'])
    .execute();
  // Dropped with the old table; the function of PostgreSQL's triggers is not involved here.
  await appendOnly(db, 'sqlite', 'accreditation_history');
}

/** Refuses UPDATE and DELETE on a table (and TRUNCATE on PostgreSQL), as migration 0003 does. */
async function appendOnly(db: Kysely<unknown>, dialect: Dialect, table: string) {
  const message = sql.lit(`${table} is append-only`);
  if (dialect === 'postgres') {
    const fn = sql.raw(`${table}_append_only`);
    await sql`create function ${fn}() returns trigger language plpgsql as $$
      begin raise exception ${message}; end $$`.execute(db);
    await sql`create trigger ${sql.raw(`${table}_no_change`)} before update or delete on ${sql.table(table)}
      for each row execute function ${fn}()`.execute(db);
    await sql`create trigger ${sql.raw(`${table}_no_truncate`)} before truncate on ${sql.table(table)}
      for each statement execute function ${fn}()`.execute(db);
  } else {
    await sql`create trigger ${sql.raw(`${table}_no_update`)} before update on ${sql.table(table)}
      begin select raise(abort, ${message}); end`.execute(db);
    await sql`create trigger ${sql.raw(`${table}_no_delete`)} before delete on ${sql.table(table)}
      begin select raise(abort, ${message}); end`.execute(db);
  }
}
