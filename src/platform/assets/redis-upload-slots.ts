import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { defineScript } from '../shared-state/redis-script';
import { MemoryUploadSlots, type SlotAnswer, type UploadSlots } from './upload-slots';

/** Redis's own clock, in milliseconds: every instance's leases are measured on one clock. */
const nowLua = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS: the user's set. ARGV: the upload's id, the lease, the cap. Answers {taken 1|0, running}. */
const takeLua = `${nowLua}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local running = redis.call('ZCARD', KEYS[1])
if running >= tonumber(ARGV[3]) then return {0, running} end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, running + 1}
`;

/**
 * KEYS: a user's set. ARGV: the lease, then this instance's uploads in it. XX: an upload released
 * meanwhile (or whose lease ran out while Redis was away) is not brought back.
 */
const renewLua = `${nowLua}
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/**
 * The per-user cap of uploads in flight, agreed by every instance. Each user has a sorted set in
 * Redis: one member per upload in flight, scored with the end of its lease. Taking a place is one
 * script (drop expired leases, count, add), so two instances cannot both take the last place. The
 * instance holding an upload renews its lease every `leaseMs / 3` and removes it when the upload
 * ends; an instance that dies (or loses Redis) stops renewing, and its uploads stop counting
 * `leaseMs` later without anyone cleaning up.
 *
 * Chosen over per-instance counters with an expiry: a user's total would then be a sum over keys
 * whose instances nobody lists, and checking it and adding to it could not be one atomic step.
 *
 * When Redis fails, uploads are not refused for it: the cap protects capacity, not data, so each
 * instance then caps its own uploads in memory (`MemoryUploadSlots`) until Redis answers again.
 */
export class RedisUploadSlots implements UploadSlots {
  private readonly takeScript;
  private readonly renewScript;
  /** This instance's uploads in flight: id → the user's set. */
  private readonly held = new Map<string, string>();
  private readonly fallback: MemoryUploadSlots;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly perUser: number,
    private readonly log: Pick<FastifyBaseLogger, 'error'>,
    private readonly leaseMs = 30_000,
  ) {
    this.takeScript = defineScript(redis, 'uploadSlotTake', 1, takeLua);
    this.renewScript = defineScript(redis, 'uploadSlotRenew', 1, renewLua);
    this.fallback = new MemoryUploadSlots(perUser);
    this.timer = setInterval(() => void this.renew(), leaseMs / 3);
    this.timer.unref();
  }

  async take(userId: number): Promise<SlotAnswer> {
    const key = `${this.prefix}uploads:${userId}`;
    const id = randomUUID();
    let answer: [number, number];
    try {
      answer = (await this.takeScript([key], [id, this.leaseMs, this.perUser])) as [number, number];
    } catch (error) {
      this.log.error({ err: error }, 'upload cap: Redis failed; this instance counts its own uploads');
      return this.fallback.take(userId);
    }
    const [taken, running] = answer;
    if (taken !== 1) return { taken: false, running };
    this.held.set(id, key);
    return {
      taken: true,
      release: () => {
        this.held.delete(id);
        // When this fails, the lease runs out by itself.
        this.redis.zrem(key, id).catch(() => {});
      },
    };
  }

  close() {
    clearInterval(this.timer);
  }

  private async renew() {
    const byUser = new Map<string, string[]>();
    for (const [id, key] of this.held) byUser.set(key, [...(byUser.get(key) ?? []), id]);
    await Promise.all(
      [...byUser].map(([key, ids]) =>
        this.renewScript([key], [this.leaseMs, ...ids]).catch((error: unknown) =>
          this.log.error({ err: error }, 'upload cap: Redis failed renewing leases'),
        ),
      ),
    );
  }
}
