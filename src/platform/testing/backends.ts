import { freshPostgresSchema } from './postgres';

/** Where a test platform keeps its state: configuration to add, and what to remove afterwards. */
export interface TestBackend {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * The backends the platform's integration tests run on. By default the embedded ones (SQLite and
 * files in the data directory, nothing to set); the Vitest project `platform-scaled` sets
 * TEST_DATABASE=postgres and runs the same tests on a fresh PostgreSQL schema per platform.
 */
export async function testBackend(): Promise<TestBackend> {
  if (process.env.TEST_DATABASE !== 'postgres') return { env: {}, dispose: async () => {} };
  const schema = await freshPostgresSchema();
  return { env: { DATABASE_URL: schema.url }, dispose: schema.drop };
}
