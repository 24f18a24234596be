import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/** The Redis the tests use; `.ci/run` and docs/development.md's set-up start one on the default port. */
export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Whether this run puts the platforms on Redis (the `platform-scaled` Vitest project sets it). */
export const testWithRedis = process.env.TEST_REDIS === '1';

/**
 * The variables that put one test platform (or a group of instances sharing state) on the test
 * Redis, under a key prefix of its own: tests running at once never see each other's keys.
 */
export function testRedisEnv(prefix = `test:${randomUUID()}:`) {
  return { REDIS_URL: testRedisUrl, REDIS_KEY_PREFIX: prefix };
}

/** A connection to the test Redis, for tests that look at or change what is stored there. */
export function testRedisClient() {
  return new Redis(testRedisUrl, { maxRetriesPerRequest: 1 });
}

/** Removes every key under `prefix`: what a test platform leaves behind. */
export async function removeRedisKeys(prefix: string) {
  const redis = testRedisClient();
  try {
    const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
    for await (const keys of redis.scanStream({ match: pattern, count: 500 }) as AsyncIterable<string[]>) {
      if (keys.length > 0) await redis.unlink(...keys);
    }
  } finally {
    redis.disconnect();
  }
}
