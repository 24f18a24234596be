import type { PlatformConfig } from '../env';
import { freshPostgresSchema } from './postgres';
import { testRedisEnv, testWithRedis } from './redis';

/** Where a test platform keeps its state: configuration to add, and what to remove afterwards. */
export interface TestBackend {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * The backends the platform's integration tests run on. By default the embedded ones (SQLite and
 * files in the data directory, memory; nothing to set). The Vitest project `platform-scaled` runs
 * the same tests on the scale-out engines: TEST_DATABASE=postgres (a fresh schema per platform) and
 * TEST_REDIS=1 (a key prefix of its own, removed by the platform's close).
 */
export async function testBackend(): Promise<TestBackend> {
  const schema = process.env.TEST_DATABASE === 'postgres' ? await freshPostgresSchema() : undefined;
  return {
    env: {
      ...(schema ? { DATABASE_URL: schema.url } : {}),
      ...(testWithRedis ? testRedisEnv() : {}),
    },
    dispose: async () => {
      await schema?.drop();
    },
  };
}

/**
 * A second instance of a test platform: its own data directory, the first one's PostgreSQL schema
 * and Redis keys (several instances share a database server, as deploy/ runs them). The first one's
 * close removes them, so close this one first.
 */
export function sharedBackend(first: { config: PlatformConfig }): TestBackend {
  const { database, redis } = first.config;
  if (!database.url) throw new Error('Instances share a PostgreSQL database: run this in platform-scaled.');
  return {
    env: { DATABASE_URL: database.url, ...(redis ? testRedisEnv(redis.keyPrefix) : {}) },
    dispose: async () => {},
  };
}
