import { hash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import {
  CompiledQuery,
  Kysely,
  Migrator,
  PostgresDialect,
  SqliteDialect,
  sql,
  type Compilable,
  type Migration,
  type Transaction,
} from 'kysely';
import pg from 'pg';
import type { Dialect, DialectMigration } from './dialect';
import type { Database } from './schema';
import * as m0001 from './migrations/0001-identity-and-entities';
import * as m0002 from './migrations/0002-assets';
import * as m0003 from './migrations/0003-accreditation-history';
import * as m0004 from './migrations/0004-pending-thumbnails';
import * as m0005 from './migrations/0005-entity-asset-pages';
import * as m0006 from './migrations/0006-accreditation-review';
import * as m0007 from './migrations/0007-resumable-uploads';
import * as m0008 from './migrations/0008-photo-quality';

/** Every migration, in order. Names are stored in the database: never rename one that has shipped. */
const migrations: Record<string, DialectMigration> = {
  '0001-identity-and-entities': m0001,
  '0002-assets': m0002,
  '0003-accreditation-history': m0003,
  '0004-pending-thumbnails': m0004,
  '0005-entity-asset-pages': m0005,
  '0006-accreditation-review': m0006,
  '0007-resumable-uploads': m0007,
  '0008-photo-quality': m0008,
};

/**
 * The same migrations for both engines, each told which one it writes for; `before` stops at that
 * migration (tests build the database as an earlier version left it).
 */
export function migrationsFor(dialect: Dialect, before?: string): Record<string, Migration> {
  const names = Object.keys(migrations);
  const end = before === undefined ? names.length : names.indexOf(before);
  if (end === -1) throw new Error(`no migration ${before}`);
  return Object.fromEntries(
    names.slice(0, end).map((name) => [name, { up: (db) => migrations[name]!.up(db, dialect) }]),
  );
}

export type DB = Kysely<Database>;
/** A transaction, as the feature folders pass one around (they never import kysely themselves). */
export type DbTransaction = Transaction<Database>;

/** The advisory lock of filling an empty database (any number no other lock of ours uses). */
const emptyDatabaseLockKey = 7_240_315;

/**
 * Runs `fill` in one transaction if the database has no user yet, and answers whether it ran.
 * Instances started side by side on one empty PostgreSQL would all find it empty: one fills it, the
 * others wait on the advisory lock and then find its users.
 */
export async function whileEmpty(db: DB, fill: (trx: DbTransaction) => Promise<void>): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (dialectOf(db) === 'postgres')
      await sql`select pg_advisory_xact_lock(${emptyDatabaseLockKey})`.execute(trx);
    const existing = await trx.selectFrom('users').select('id').limit(1).executeTakeFirst();
    if (existing) return false;
    await fill(trx);
    return true;
  });
}

/** The cheapest question the database answers: whether it answers (readiness). */
export async function pingDatabase(db: DB): Promise<void> {
  await sql`select 1`.execute(db);
}

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

/** The SQLite connection, or PostgreSQL pool, under each database opened here, for `preparedRead`. */
const connections = new WeakMap<DB, SQLite.Database>();
const pools = new WeakMap<DB, pg.Pool>();

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
 *
 * On PostgreSQL the statement is named, so that each connection of the pool parses and plans it
 * once instead of at every request (the asset read's subqueries cost PostgreSQL 250–340 µs of CPU
 * a request unnamed: docs/benchmarks.md, S4s). A read inside a transaction runs on the
 * transaction's connection, through Kysely.
 */
export function preparedRead<Args extends unknown[], Row>(
  build: (db: DB, ...args: Args) => Compilable<Row>,
): (db: DB, ...args: Args) => Promise<Row | undefined> {
  interface Prepared {
    sql: string;
    bind: (args: Args) => unknown[];
    sqlite?: SQLite.Database;
    statement?: SQLite.Statement;
    pool?: pg.Pool;
    /** The PostgreSQL statement's name: its text's hash, so that one name never means two texts. */
    name: string;
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
    const entry = {
      sql,
      bind,
      sqlite,
      statement: sqlite?.prepare(sql),
      pool: pools.get(db),
      name: `read_${hash('sha256', sql, 'hex').slice(0, 32)}`,
    };
    prepared.set(db, entry);
    return entry;
  };
  return async (db, ...args) => {
    const { sql, bind, sqlite, statement, pool, name } = prepared.get(db) ?? prepare(db);
    const parameters = bind(args);
    if (statement && !sqlite!.inTransaction) return statement.get(parameters) as Row | undefined;
    if (pool) return (await pool.query<Row & object>({ name, text: sql, values: parameters })).rows[0];
    const { rows } = await db.executeQuery<Row>(CompiledQuery.raw(sql, parameters));
    return rows[0];
  };
}

/** Where the database is and how long to wait for it (config/env.ts reads these from DATABASE_*). */
export interface DatabaseSettings {
  /** PostgreSQL's URL; without it, SQLite in `dataDir`. */
  url?: string;
  poolSize: number;
  connectTimeoutMs: number;
  statementTimeoutMs: number;
  startTimeoutMs: number;
}

export interface DatabaseConfig {
  dataDir: string;
  database: DatabaseSettings;
}

/** Where start-up says that it is still waiting for PostgreSQL. */
export interface StartLog {
  warn(message: string): void;
  /** Which database, and the migrations applied or found current. */
  info?(message: string): void;
}

/**
 * Opens the platform's database and brings its schema up to date: PostgreSQL when `DATABASE_URL`
 * is set, else the SQLite file in the data directory (the embedded default, nothing to install).
 * A PostgreSQL that cannot be reached yet is tried again with backoff (`waitForPostgres`).
 */
export async function openDatabase(config: DatabaseConfig, log?: StartLog): Promise<DB> {
  const { url } = config.database;
  if (!url) {
    const db = openSqlite(config.dataDir);
    dialects.set(db, 'sqlite');
    try {
      const applied = await migrate(db, 'sqlite');
      log?.info?.(startMessage(config, applied));
    } catch (error) {
      await db.destroy();
      throw error;
    }
    return db;
  }
  // Migrations on a pool of their own without the statement timeout: rewriting a large table may
  // rightly take longer than any request should.
  const untimed = openPostgres(url, { ...config.database, statementTimeoutMs: undefined });
  try {
    await waitForPostgres(untimed, url, config.database.startTimeoutMs, log);
    const applied = await migrate(untimed, 'postgres');
    log?.info?.(startMessage(config, applied));
  } finally {
    await untimed.destroy();
  }
  const db = openPostgres(url, config.database);
  dialects.set(db, 'postgres');
  return db;
}

/**
 * Brings the schema up to date, answering the migrations it applied. Several instances may start
 * at once on one PostgreSQL: the
 * migrator takes an advisory lock there. Its own tables go in the schema the platform's tables go
 * in (the first of the search path): unqualified, Kysely would take another schema's for ours and
 * never create them.
 */
async function migrate(db: DB, dialect: Dialect): Promise<string[]> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrationsFor(dialect) },
    ...(dialect === 'postgres' ? { migrationTableSchema: await currentSchema(db) } : {}),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error) throw error;
  return results.map((result) => result.migrationName);
}

const dialects = new WeakMap<DB, Dialect>();

/** "database: PostgreSQL at host:5432, schema current (12 migrations)": never the user or password. */
function startMessage(config: DatabaseConfig, applied: string[]): string {
  const where = config.database.url
    ? `PostgreSQL at ${databaseAddress(config.database.url)}`
    : `SQLite at ${join(config.dataDir, 'platform.sqlite')}`;
  const known = Object.keys(migrations).length;
  const state =
    applied.length === 0
      ? `schema current (${known} migrations)`
      : `migrations applied: ${applied.join(', ')}`;
  return `database: ${where}, ${state}`;
}

/** The PostgreSQL pool under a database opened here (the metrics read its counts); none on SQLite. */
export const poolOf = (db: DB): pg.Pool | undefined => pools.get(db);

async function currentSchema(db: DB): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]!.schema;
}

/** Which engine a database opened here runs on, for the few statements that differ. */
export const dialectOf = (db: DB): Dialect => dialects.get(db) ?? 'sqlite';

/** The SQLite file in the data directory, created when absent. */
function openSqlite(dataDir: string): DB {
  mkdirSync(dataDir, { recursive: true });
  const sqlite = new SQLite(join(dataDir, 'platform.sqlite'));
  sqlite.pragma('journal_mode = WAL');
  // An answered write survives a power loss, not only a crash of this process: with WAL, NORMAL
  // syncs only at checkpoints, so the last commits before a power cut could vanish after their 201
  // (an upload whose file is on disk but whose row is not). FULL syncs the WAL at every commit;
  // what it costs is measured in docs/platform-contract.md ("Our platform's endpoints in words";
  // issue 15, point 6).
  sqlite.pragma('synchronous = FULL');
  sqlite.pragma('foreign_keys = ON');
  // The admin commands may write while a server runs: wait for its lock instead of failing.
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  connections.set(db, sqlite);
  return db;
}

/** 64-bit integers (times in milliseconds, counts) as numbers: every one of ours is far below 2^53. */
const int8 = pg.types.builtins.INT8;
const parseInt8 = (value: string) => Number(value);

/** Where a database URL points, for messages: host and port, never the user or password. */
export function databaseAddress(url: string): string {
  const parsed = new URL(url);
  return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}`;
}

/**
 * How much longer than the statement timeout a query waits for any answer before its connection
 * is given up as unreachable: PostgreSQL's own cancellation (a clean error, the connection kept)
 * comes first whenever PostgreSQL can still answer.
 */
const unansweredMarginMs = 1000;

/**
 * A connection that never takes the process down with it, and that is dropped when a query goes
 * unanswered past its time (pg's "Query read timeout"): pg only stops waiting, leaving the query in
 * flight, so every later query on that connection would queue behind it, and the pool would hand
 * it out again and again.
 */
class GivingUpClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    // A connection lost while Kysely holds it (between two statements of a transaction, say) is
    // an 'error' event with no listener, which would end the process: the pool listens only while
    // the connection is idle. The statement under way fails by itself; on release the pool drops
    // the connection, which is no longer queryable.
    this.on('error', () => {});
  }

  // pg's query has many overloads; this only watches the outcome of each, whichever was called.
  override query(...args: unknown[]): never {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (error: unknown, result: unknown) => {
        this.dropIfUnanswered(error);
        (callback as (error: unknown, result: unknown) => void)(error, result);
      };
    }
    const result = (super.query as (...a: unknown[]) => unknown)(...args);
    if (result instanceof Promise) result.catch((error: unknown) => this.dropIfUnanswered(error));
    return result as never;
  }

  private dropIfUnanswered(error: unknown) {
    if ((error as Error | null)?.message !== 'Query read timeout') return;
    (this as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
  }
}

/**
 * A pool of connections to PostgreSQL. PostgreSQL's default durability already matches SQLite's
 * synchronous FULL here: a commit returns after its WAL record is flushed (synchronous_commit on).
 *
 * PostgreSQL going away (a restart, a partition) never stops the process: a connection that fails
 * while idle is dropped from the pool (its 'error' event, which unhandled would crash the process),
 * the requests that needed it answer 503 (`backend-outages.ts`), and the next request opens a new
 * connection, so the instance is back as soon as PostgreSQL is. Nothing waits longer than the
 * connect timeout or the statement timeout (plus `unansweredMarginMs`).
 */
function openPostgres(
  url: string,
  timeouts: Omit<DatabaseSettings, 'statementTimeoutMs'> & { statementTimeoutMs?: number },
): DB {
  const statementTimeoutMs = timeouts.statementTimeoutMs;
  const pool = new pg.Pool({
    connectionString: url,
    max: timeouts.poolSize,
    Client: GivingUpClient,
    connectionTimeoutMillis: timeouts.connectTimeoutMs,
    ...(statementTimeoutMs === undefined
      ? {}
      : { statement_timeout: statementTimeoutMs, query_timeout: statementTimeoutMs + unansweredMarginMs }),
    // A peer that vanished without a word (a machine gone) is noticed by the kernel in time.
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === int8 ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  // The requests that used the connection have their own error; the pool has dropped it already.
  pool.on('error', () => {});
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  pools.set(db, pool);
  return db;
}

/**
 * Start-up waits for PostgreSQL (started at the same time by a supervisor, or restarting): it tries
 * a first query with backoff (0.5 s doubling to 5 s), saying where it is waiting, until
 * `timeoutMs`; then the start fails with the same words.
 */
async function waitForPostgres(db: DB, url: string, timeoutMs: number, log?: StartLog) {
  const deadline = Date.now() + timeoutMs;
  for (let delay = 500; ; delay = Math.min(delay * 2, 5000)) {
    try {
      await sql`select 1`.execute(db);
      return;
    } catch (error) {
      const message = `database unreachable at ${databaseAddress(url)}: ${(error as Error).message}`;
      if (Date.now() + delay > deadline) throw new Error(message, { cause: error });
      log?.warn(`${message}; trying again in ${delay / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}
