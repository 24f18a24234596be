import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { removeRedisKeys, testRedisClient, testRedisEnv } from '../testing/redis';
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
    const leavingLeases = new LeasedMembers(lost, log, leaseMs);
    const stayingLeases = new LeasedMembers(survivor, console, leaseMs);
    const leaving = new RedisUploadSlots(lost, leavingLeases, prefix, 2, log);
    const staying = new RedisUploadSlots(survivor, stayingLeases, prefix, 2, console);
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
      expect(logged.join('')).toContain('Redis failed renewing leases');
    } finally {
      leavingLeases.close();
      stayingLeases.close();
      survivor.disconnect();
    }
  });
});
