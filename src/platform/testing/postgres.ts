import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL the tests use: the machine's own (running.md), unless TEST_POSTGRES_URL says otherwise. */
export const testPostgresUrl = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestSchema {
  /** A DATABASE_URL whose connections work in this schema alone. */
  url: string;
  drop(): Promise<void>;
}

async function run(statement: string) {
  const client = new pg.Client({ connectionString: testPostgresUrl });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A fresh, empty schema for one test platform, so that tests running side by side on one database
 * never see each other's rows; a schema costs milliseconds where a database costs a second.
 */
export async function freshPostgresSchema(): Promise<TestSchema> {
  const schema = `test_${randomBytes(6).toString('hex')}`;
  await run(`create schema ${schema}`);
  const url = new URL(testPostgresUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return { url: url.toString(), drop: () => run(`drop schema if exists ${schema} cascade`) };
}
