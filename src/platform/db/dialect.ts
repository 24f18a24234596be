import type { ColumnDefinitionBuilder, Kysely } from 'kysely';

/** The database engines the platform runs on: SQLite (embedded default) and PostgreSQL. */
export type Dialect = 'sqlite' | 'postgres';

/**
 * A migration written once for both engines. It is told which one it runs on, for the few
 * statements that differ (generated ids, triggers); everything else is Kysely's portable builder.
 * It takes Kysely<unknown>: a migration describes the schema as it was then, not as the code sees it now.
 */
export interface DialectMigration {
  up(db: Kysely<unknown>, dialect: Dialect): Promise<void>;
}

/**
 * An integer primary key the database numbers itself and never reuses: AUTOINCREMENT on SQLite (a
 * deleted row's id never comes back), an identity column on PostgreSQL (a sequence never goes back).
 */
export const generatedId =
  (dialect: Dialect) =>
  (column: ColumnDefinitionBuilder): ColumnDefinitionBuilder =>
    dialect === 'postgres'
      ? column.primaryKey().generatedByDefaultAsIdentity()
      : column.primaryKey().autoIncrement();

/** A byte count that may pass 2 GiB: SQLite's integer is 64-bit already; PostgreSQL's is not. */
export const byteCountType = (dialect: Dialect) => (dialect === 'postgres' ? 'bigint' : 'integer');
