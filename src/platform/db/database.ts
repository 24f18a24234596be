import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { CompiledQuery, Kysely, Migrator, SqliteDialect, type Compilable, type Migration } from 'kysely';
import type { Database } from './schema';
import * as m0001 from './migrations/0001-identity-and-entities';
import * as m0002 from './migrations/0002-assets';
import * as m0003 from './migrations/0003-accreditation-history';
import * as m0004 from './migrations/0004-pending-thumbnails';
import * as m0005 from './migrations/0005-entity-asset-pages';

/** Every migration, in order. Names are stored in the database: never rename one that has shipped. */
const migrations: Record<string, Migration> = {
  '0001-identity-and-entities': m0001,
  '0002-assets': m0002,
  '0003-accreditation-history': m0003,
  '0004-pending-thumbnails': m0004,
  '0005-entity-asset-pages': m0005,
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

/** The SQLite connection under each database opened here, for `preparedRead`. */
const connections = new WeakMap<DB, SQLite.Database>();

/**
 * A read on a hot path (the API's asset reads), built and compiled by Kysely once per database, so
 * that its SQL stays Kysely's (portable), and then run as a prepared statement with only its
 * arguments changing. Building and compiling the same query anew on every call cost more than
 * running it, and Kysely's executor (connection mutex, promises) about as much again.
 *
 * `build` takes the database and then its arguments (no defaults, no rest: they are counted), and
 * must put each argument into the query as a plain value, untouched: it is called once with
 * placeholder objects, which are found among the compiled parameters and replaced by the arguments
 * of each call. Inside a transaction (the one SQLite connection is then part-way through someone's
 * writes) the read waits for it through Kysely instead, as every other query does.
 */
export function preparedRead<Args extends unknown[], Row>(
  build: (db: DB, ...args: Args) => Compilable<Row>,
): (db: DB, ...args: Args) => Promise<Row | undefined> {
  interface Prepared {
    sql: string;
    bind: (args: Args) => unknown[];
    sqlite?: SQLite.Database;
    statement?: SQLite.Statement;
  }
  const prepared = new WeakMap<DB, Prepared>();
  const prepare = (db: DB): Prepared => {
    const slots = Array.from({ length: build.length - 1 }, (_, index) => ({ slot: index }));
    const { sql, parameters } = build(db, ...(slots as unknown as Args)).compile();
    if (!slots.every((slot) => parameters.includes(slot)))
      throw new Error(`preparedRead: an argument is not a plain value of the query: ${sql}`);
    const sources = parameters.map((p) => slots.indexOf(p as (typeof slots)[number]));
    const bind = (args: Args) => sources.map((source, i) => (source === -1 ? parameters[i] : args[source]));
    const sqlite = connections.get(db);
    const entry = { sql, bind, sqlite, statement: sqlite?.prepare(sql) };
    prepared.set(db, entry);
    return entry;
  };
  return async (db, ...args) => {
    const { sql, bind, sqlite, statement } = prepared.get(db) ?? prepare(db);
    const parameters = bind(args);
    if (statement && !sqlite!.inTransaction) return statement.get(parameters) as Row | undefined;
    const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(sql, parameters));
    return rows[0];
  };
}

/** Opens (and creates) the database file in the data directory and brings its schema up to date. */
export async function openDatabase(dataDir: string): Promise<DB> {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(join(dataDir, 'platform.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  // An answered write survives a power loss, not only a crash of this process: with WAL, NORMAL
  // syncs only at checkpoints, so the last commits before a power cut could vanish after their 201
  // (an upload whose file is on disk but whose row is not). FULL syncs the WAL at every commit;
  // what it costs is measured in the README's bench section (issue 15, point 6).
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // The admin commands may write while a server runs: wait for its lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  connections.set(db, sqlite);

  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error } = await migrator.migrateToLatest();
  if (error) {
    await db.destroy();
    throw error;
  }
  return db;
}
