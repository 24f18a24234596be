import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFor, openDatabase } from '../database';
import { configFor } from '../../config/env';
import { freshPostgresSchema, type TestSchema } from '../../testing/postgres';
import type { Role } from '../../../shared/api/me';
import type { Database } from '../schema';

const dataDir = mkdtempSync(join(tmpdir(), 'platform-0006-'));
/** On PostgreSQL in the platform-scaled project, as the platform there would find it. */
let schema: TestSchema | undefined;
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await schema?.drop();
});

/** The database as the previous version left it, on the engine this project tests. */
async function databaseBefore0006() {
  const postgres = process.env.TEST_DATABASE === 'postgres';
  if (postgres) schema = await freshPostgresSchema();
  const db = new Kysely<Database>({
    dialect: schema
      ? new PostgresDialect({ pool: new pg.Pool({ connectionString: schema.url, max: 1 }) })
      : new SqliteDialect({ database: new SQLite(join(dataDir, 'platform.sqlite')) }),
  });
  // On PostgreSQL the migrator's own tables go in the test's schema, as openDatabase puts them.
  const current = schema && (await sql<{ s: string }>`select current_schema() as s`.execute(db)).rows[0]!.s;
  const migrator = new Migrator({
    db,
    ...(current ? { migrationTableSchema: current } : {}),
    provider: {
      getMigrations: async () => migrationsFor(postgres ? 'postgres' : 'sqlite', '0006-accreditation-review'),
    },
  });
  expect((await migrator.migrateToLatest()).error).toBeUndefined();
  return db;
}

describe('migration 0006 on a database with accreditations waiting and decided', () => {
  it('keeps waiting only those whose documents meet the review, since they were opened; keeps the history', async () => {
    const old = await databaseBefore0006();
    const user = (role: Role, email: string) => ({
      email,
      name: email,
      role,
      password_hash: 'x',
      created_at: 1,
    });
    await old
      .insertInto('users')
      .values([user('investor', 'i@x.test'), user('admin', 'a@x.test')])
      .execute();
    const waiting = (name: string, createdAt: number) => ({
      owner_id: 1,
      name,
      status: 'pending' as const,
      created_at: createdAt,
    });
    // Written without the new columns, as the old code did.
    await old
      .insertInto('accreditations')
      .values([
        waiting('Nothing yet', 100),
        waiting('Letter and both sides', 200),
        waiting('Executed letter and one photo of both sides', 300),
        waiting('Letter and the front only', 400),
        {
          owner_id: 1,
          name: 'Decided',
          status: 'rejected',
          review_note: 'Too old.',
          reviewed_by: 2,
          reviewed_at: 5000,
          created_at: 500,
        },
      ] as never)
      .execute();
    const asset = (
      accreditationId: number,
      fileType: string,
      meta = {},
      thumbnailOf: number | null = null,
    ) => ({
      name: `${fileType}.bin`,
      file_type: fileType,
      assetable_type: 'Accreditation' as const,
      assetable_id: accreditationId,
      blob_key: `key-${accreditationId}-${fileType}-${Math.random()}`,
      content_type: 'application/pdf',
      size: 10,
      sha256: 'f'.repeat(64),
      meta: JSON.stringify(meta),
      private: 1,
      thumbnail_of: thumbnailOf,
      version: 1,
      created_by: 1,
      created_at: 1,
      updated_at: 1,
    });
    await old
      .insertInto('assets')
      .values([
        asset(2, 'letter_of_accreditation'),
        asset(2, 'drivers_license', { side: 'front' }),
        asset(2, 'drivers_license', { side: 'back' }),
        asset(3, 'executed_letter_of_accreditation'),
        asset(3, 'drivers_license', { side: 'both' }),
        asset(4, 'letter_of_accreditation'),
        asset(4, 'drivers_license'),
      ])
      .execute();
    // A thumbnail is no second licence photo.
    await old
      .insertInto('assets')
      .values(asset(4, 'drivers_license', {}, 7))
      .execute();
    await old
      .insertInto('accreditation_history')
      .values({ accreditation_id: 5, at: 5000, actor_id: 2, action: 'rejected', note: 'Too old.' })
      .execute();
    // The newest one is gone: its id is never given again.
    await old.insertInto('accreditations').values(waiting('Removed', 600)).execute();
    await old.deleteFrom('accreditations').where('name', '=', 'Removed').execute();
    await old.destroy();

    const db = await openDatabase(
      configFor({ DATA_DIR: dataDir, ...(schema ? { DATABASE_URL: schema.url } : {}) }),
    );
    try {
      const rows = await db
        .selectFrom('accreditations')
        .select(['id', 'status', 'submitted_at', 'address_on_licence', 'review_reason', 'version'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        {
          id: 1,
          status: 'documents_needed',
          submitted_at: null,
          address_on_licence: 1,
          review_reason: null,
          version: 1,
        },
        {
          id: 2,
          status: 'pending',
          submitted_at: 200,
          address_on_licence: 1,
          review_reason: null,
          version: 1,
        },
        {
          id: 3,
          status: 'pending',
          submitted_at: 300,
          address_on_licence: 1,
          review_reason: null,
          version: 1,
        },
        {
          id: 4,
          status: 'documents_needed',
          submitted_at: null,
          address_on_licence: 1,
          review_reason: null,
          version: 1,
        },
        {
          id: 5,
          status: 'rejected',
          submitted_at: null,
          address_on_licence: 1,
          review_reason: null,
          version: 1,
        },
      ]);
      const history = await db.selectFrom('accreditation_history').selectAll().execute();
      expect(history).toEqual([
        expect.objectContaining({
          id: 1,
          accreditation_id: 5,
          action: 'rejected',
          note: 'Too old.',
          reason: null,
        }),
      ]);

      // The new names are taken, ids go on from where they were, unknown values are still refused.
      const { id } = await db
        .insertInto('accreditations')
        .values({ owner_id: 1, name: 'New', created_at: 600 } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
      expect(id).toBe(7);
      const created = await db
        .selectFrom('accreditations')
        .select('status')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      expect(created.status).toBe('documents_needed');
      await db
        .insertInto('accreditation_history')
        .values({ accreditation_id: 7, at: 700, actor_id: 1, action: 'submitted', note: null })
        .execute();
      expect(
        (
          await db
            .selectFrom('accreditation_history')
            .select('id')
            .where('action', '=', 'submitted')
            .executeTakeFirstOrThrow()
        ).id,
      ).toBe(2);
      await expect(
        db
          .updateTable('accreditations')
          .set({ status: 'maybe' as never })
          .where('id', '=', 7)
          .execute(),
      ).rejects.toThrow(/check constraint/i);
      await expect(
        db
          .updateTable('accreditations')
          .set({ review_reason: 'bored' as never })
          .where('id', '=', 5)
          .execute(),
      ).rejects.toThrow(/check constraint/i);

      // The history is still append-only, and so is the new table of a decision's files.
      await expect(sql`delete from accreditation_history`.execute(db)).rejects.toThrow(/append-only/);
      await db
        .insertInto('accreditation_decision_files')
        .values({
          history_id: 1,
          accreditation_id: 5,
          asset_id: 1,
          name: 'l.pdf',
          sha256: 'f'.repeat(64),
          file_type: 'letter_of_accreditation',
        })
        .execute();
      await expect(sql`delete from accreditation_decision_files`.execute(db)).rejects.toThrow(/append-only/);
      // A file a decision names cannot be deleted, whatever deletes it.
      await expect(db.deleteFrom('assets').where('id', '=', 1).execute()).rejects.toThrow(/foreign key/i);
    } finally {
      await db.destroy();
    }
  });
});
