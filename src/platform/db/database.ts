import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect, type Migration } from 'kysely';
import type { Database } from './schema';
import * as m0001 from './migrations/0001-identity-and-entities';
import * as m0002 from './migrations/0002-assets';

/** Every migration, in order. Names are stored in the database: never rename one that has shipped. */
const migrations: Record<string, Migration> = {
  '0001-identity-and-entities': m0001,
  '0002-assets': m0002,
};

export type DB = Kysely<Database>;

/**
 * Kysely prepares every query anew; preparing costs as much as running a small query here. Kysely's
 * SQL for one query shape is always the same text, so statements are kept and reused (bounded, in
 * case some shape varies, such as IN lists of different lengths).
 */
function withStatementCache(sqlite: SQLite.Database) {
  const statements = new Map<string, SQLite.Statement>();
  return {
    prepare(sql: string) {
      let statement = statements.get(sql);
      if (!statement) {
        if (statements.size >= 500) statements.clear();
        statement = sqlite.prepare(sql);
        statements.set(sql, statement);
      }
      return statement;
    },
    close: () => sqlite.close(),
  };
}

/** Opens (and creates) the database file in the data directory and brings its schema up to date. */
export async function openDatabase(dataDir: string): Promise<DB> {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(join(dataDir, 'platform.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  // The admin commands may write while a server runs: wait for its lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });

  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    await db.destroy();
    throw error;
  }
  return db;
}
