import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { removeRedisKeys, testRedisClient, testRedisEnv } from '../testing/redis';
import { RedisDegradedMode } from '../shared-state/degraded-mode';
import { LeasedMembers } from '../shared-state/leased-members';
import { RedisUploadSlots } from './redis-upload-slots';

const prefix = testRedisEnv().REDIS_KEY_PREFIX;
afterAll(() => removeRedisKeys(prefix));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const leaseMs = 3000;
const user = 7;

describe('H8 the upload cap across instances', () => {
  it('keeps the places of a live instance past their lease, and frees those of one that is gone once it runs out', async () => {
    const lost = testRedisClient();
    const survivor = testRedisClient();
    const logged: string[] = [];
    const { log } = Fastify({ logger: { stream: { write: (line: string) => void logged.push(line) } } });
    const leavingMode = new RedisDegradedMode('the lost Redis', () => lost.ping(), log);
    const stayingMode = new RedisDegradedMode('the test Redis', () => survivor.ping(), console);
    const leavingLeases = new LeasedMembers(lost, leavingMode, leaseMs);
    const stayingLeases = new LeasedMembers(survivor, stayingMode, leaseMs);
    const leaving = new RedisUploadSlots(lost, leavingLeases, prefix, 2, leavingMode);
    const staying = new RedisUploadSlots(survivor, stayingLeases, prefix, 2, stayingMode);
    try {
      expect((await leaving.take(user)).taken).toBe(true);
      expect((await leaving.take(user)).taken).toBe(true);
      expect(await staying.take(user)).toEqual({ taken: false, running: 2 });

      // Alive, the first instance renews its leases: twice their length later they still count.
      await sleep(2 * leaseMs);
      expect(await staying.take(user)).toEqual({ taken: false, running: 2 });

      // It loses Redis (or dies) with both uploads unfinished: nobody releases them...
      lost.disconnect();
      expect((await staying.take(user)).taken).toBe(false);
      // ...and once their leases run out they stop counting.
      await expect.poll(async () => (await staying.take(user)).taken, { interval: 500 }).toBe(true);
      expect(await staying.take(user)).toMatchObject({ taken: true });
      expect(await staying.take(user)).toEqual({ taken: false, running: 2 });
      // The instance that lost Redis said so once, without a stack trace.
      expect(logged.join('')).toContain('Redis at the lost Redis is unreachable');
      expect(logged.join('')).not.toContain('"stack"');
    } finally {
      leavingMode.close();
      leavingLeases.close();
      stayingLeases.close();
      survivor.disconnect();
    }
  });
});
