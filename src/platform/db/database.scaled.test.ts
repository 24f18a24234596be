import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { configFor } from '../config/env';
import { freshPostgresSchema } from '../testing/postgres';
import { type DB, openDatabase, preparedRead } from './database';
import { insertUser } from './repositories/users';

// An operator may give the platform a schema of its own on a database that holds others
// (DATABASE_URL with `options=-c search_path=…`), some of them other platforms'.
it('migrates a PostgreSQL schema of its own while another schema of the database has the platform’s tables', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-schemas-'));
  const [first, second] = [await freshPostgresSchema(), await freshPostgresSchema()];
  try {
    const open = (url: string) => openDatabase(configFor({ DATA_DIR: dataDir, DATABASE_URL: url }));
    const one = await open(first.url);
    await one
      .insertInto('users')
      .values({ email: 'a@x.test', name: 'A', role: 'admin', password_hash: 'x', created_at: 1 })
      .execute();
    const two = await open(second.url);
    try {
      expect(await two.selectFrom('users').select('email').execute()).toEqual([]);
      expect(await one.selectFrom('users').select('email').execute()).toEqual([{ email: 'a@x.test' }]);
    } finally {
      await Promise.all([one.destroy(), two.destroy()]);
    }
  } finally {
    await Promise.all([first.drop(), second.drop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('preparedRead on PostgreSQL', () => {
  const emailOf = preparedRead((db: DB, id: number) =>
    db.selectFrom('users').select(['id', 'email']).where('id', '=', id),
  );

  /** A fresh schema opened with a pool of `poolSize`, and two users in it. */
  async function withUsers(poolSize: number, test: (db: DB, ids: number[]) => Promise<void>) {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-prepared-'));
    const schema = await freshPostgresSchema();
    const db = await openDatabase(
      configFor({ DATA_DIR: dataDir, DATABASE_URL: schema.url, DATABASE_POOL_SIZE: String(poolSize) }),
    );
    try {
      const ids: number[] = [];
      for (const email of ['a@x.test', 'b@x.test'])
        ids.push(
          await insertUser(db, { email, name: email, role: 'investor', passwordHash: 'x', createdAt: 1 }),
        );
      await test(db, ids);
    } finally {
      await db.destroy();
      await schema.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  }

  it('is parsed and planned once per connection: a named statement of the session', async () => {
    await withUsers(1, async (db, [first]) => {
      expect(await emailOf(db, first!)).toEqual({ id: first, email: 'a@x.test' });
      // The pool's one connection now holds it, under a name of its own.
      const { rows } = await sql<{
        name: string;
        statement: string;
      }>`select name, statement from pg_prepared_statements`.execute(db);
      expect(rows).toHaveLength(1);
      expect(rows[0]!.name).toMatch(/^read_[0-9a-f]{32}$/);
      expect(rows[0]!.statement).toMatch(/from "users"/);
    });
  });

  it('reads what the Kysely query reads, on every connection of the pool, and a transaction its own writes', async () => {
    await withUsers(4, async (db, [first, second]) => {
      const reads = await Promise.all(
        Array.from({ length: 24 }, (_, i) => emailOf(db, i % 2 ? second! : first!)),
      );
      expect(reads.map((row) => row?.email)).toEqual(
        Array.from({ length: 24 }, (_, i) => (i % 2 ? 'b@x.test' : 'a@x.test')),
      );
      expect(await emailOf(db, 987_654)).toBeUndefined();
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('users').set({ email: 'renamed@x.test' }).where('id', '=', first!).execute();
        // The transaction's own connection sees its write; the others do not until it commits.
        expect((await emailOf(trx, first!))?.email).toBe('renamed@x.test');
        expect((await emailOf(db, first!))?.email).toBe('a@x.test');
      });
      expect((await emailOf(db, first!))?.email).toBe('renamed@x.test');
    });
  });
});
