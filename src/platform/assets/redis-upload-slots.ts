import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { RedisDegradedMode } from '../shared-state/degraded-mode';
import { type LeasedMembers, redisNowLua } from '../shared-state/leased-members';
import { defineScript } from '../shared-state/redis-script';
import { MemoryUploadSlots, type SlotAnswer, type UploadSlots } from './upload-slots';

/** KEYS: the user's set. ARGV: the upload's id, the lease, the cap. Answers {taken 1|0, running}. */
const takeLua = `${redisNowLua}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local running = redis.call('ZCARD', KEYS[1])
if running >= tonumber(ARGV[3]) then return {0, running} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, running + 1}
`;

/**
 * The per-user cap of uploads in flight, agreed by every instance. Each user has a sorted set in
 * Redis: one leased member per upload in flight (shared-state/leased-members.ts), so the uploads of
 * an instance that dies stop counting a lease later. Taking a place is one script (drop expired
 * leases, count, add), so two instances cannot both take the last place.
 *
 * Chosen over per-instance counters with an expiry: a user's total would then be a sum over keys
 * whose instances nobody lists, and checking it and adding to it could not be one atomic step.
 *
 * When Redis fails, uploads are not refused for it: the cap protects capacity, not data, so each
 * instance then caps its own uploads in memory (`MemoryUploadSlots`) until Redis answers again
 * (degraded mode, shared-state/degraded-mode.ts).
 */
export class RedisUploadSlots implements UploadSlots {
  private readonly takeScript;
  private readonly fallback: MemoryUploadSlots;

  constructor(
    redis: Redis,
    private readonly leases: LeasedMembers,
    private readonly prefix: string,
    private readonly perUser: number,
    private readonly degraded: RedisDegradedMode,
  ) {
    this.takeScript = defineScript(redis, 'uploadSlotTake', 1, takeLua);
    this.fallback = new MemoryUploadSlots(perUser);
  }

  async take(userId: number): Promise<SlotAnswer> {
    if (this.degraded.active) {
      this.degraded.skipped();
      return this.fallback.take(userId);
    }
    const key = `${this.prefix}uploads:${userId}`;
    const id = randomUUID();
    let answer: [number, number];
    try {
      answer = (await this.takeScript([key], [id, this.leases.leaseMs, this.perUser])) as [number, number];
    } catch (error) {
      this.degraded.failed(error);
      return this.fallback.take(userId);
    }
    const [taken, running] = answer;
    if (taken !== 1) return { taken: false, running };
    this.leases.track(key, id);
    return { taken: true, release: () => this.leases.remove(key, id) };
  }
}
