import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFor, openDatabase } from '../database';
import { configFor } from '../../config/env';
import type { Role } from '../../../shared/api/me';
import type { Database } from '../schema';

const dataDir = mkdtempSync(join(tmpdir(), 'platform-0003-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('migration 0003 on a database that has decisions already', () => {
  it('starts each history with the decision already made, and nothing for pending ones', async () => {
    // The database as the previous version left it.
    const old = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new SQLite(join(dataDir, 'platform.sqlite')) }),
    });
    const migrator = new Migrator({
      db: old,
      provider: {
        getMigrations: async () => migrationsFor('sqlite', '0003-accreditation-history'),
      },
    });
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
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
    await old
      .insertInto('accreditations')
      .values([
        {
          owner_id: 1,
          name: 'Decided',
          status: 'rejected',
          review_note: 'Too old.',
          reviewed_by: 2,
          reviewed_at: 5000,
          created_at: 1,
        },
        { owner_id: 1, name: 'Waiting', status: 'pending', created_at: 1 },
      ])
      .execute();
    await old.destroy();

    const db = await openDatabase(configFor({ DATA_DIR: dataDir }));
    try {
      const rows = await db.selectFrom('accreditation_history').selectAll().execute();
      expect(rows).toEqual([
        expect.objectContaining({
          accreditation_id: 1,
          actor_id: 2,
          action: 'rejected',
          note: 'Too old.',
          at: 5000,
          asset_id: null,
        }),
      ]);
      const versions = await db.selectFrom('accreditations').select('version').execute();
      expect(versions).toEqual([{ version: 1 }, { version: 1 }]);
    } finally {
      await db.destroy();
    }
  });
});
