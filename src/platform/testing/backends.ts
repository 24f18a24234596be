import { randomBytes } from 'node:crypto';
import type { PlatformConfig } from '../config/env';
import { freshPostgresSchema } from './postgres';
import { testRedisEnv, testWithRedis } from './redis';
import { s3EnvOf, s3TestEnv } from './s3';

/** The key every test platform on the scale-out engines shares, as instances of one platform must. */
export const testSigningKey = randomBytes(32).toString('base64url');

/** Where a test platform keeps its state: configuration to add, and what to remove afterwards. */
export interface TestBackend {
  env: Record<string, string>;
  dispose(): Promise<void>;
}

/**
 * The backends the platform's integration tests run on. By default the embedded ones (SQLite and
 * files in the data directory, memory; nothing to set). The Vitest project `platform-scaled` runs
 * the same tests on the scale-out engines: TEST_DATABASE=postgres (a fresh schema per platform),
 * TEST_BLOB_STORE=s3 (a bucket of its own on the tests' S3 server) and TEST_REDIS=1 (a key prefix
 * of its own, removed by the platform's close).
 */
export async function testBackend(): Promise<TestBackend> {
  const schema = process.env.TEST_DATABASE === 'postgres' ? await freshPostgresSchema() : undefined;
  return {
    env: {
      ...(schema || testWithRedis ? { SIGNING_KEY: testSigningKey } : {}),
      ...(schema ? { DATABASE_URL: schema.url } : {}),
      ...(process.env.TEST_BLOB_STORE === 's3' ? await s3TestEnv() : {}),
      ...(testWithRedis ? testRedisEnv() : {}),
    },
    dispose: async () => {
      await schema?.drop();
    },
  };
}

/**
 * A second instance of a test platform: its own data directory, the first one's PostgreSQL schema,
 * bucket and Redis keys (several instances share them, as deploy/ runs them). The first one's close
 * removes them, so close this one first.
 */
export function sharedBackend(first: { config: PlatformConfig }): TestBackend {
  const { database, blobStore, redis } = first.config;
  if (!database.url) throw new Error('Instances share a PostgreSQL database: run this in platform-scaled.');
  return {
    env: {
      SIGNING_KEY: testSigningKey,
      DATABASE_URL: database.url,
      ...(blobStore.kind === 's3' ? s3EnvOf(blobStore) : {}),
      ...(redis ? testRedisEnv(redis.keyPrefix) : {}),
    },
    dispose: async () => {},
  };
}
