import type { Redis } from 'ioredis';
import type { RedisDegradedMode } from './degraded-mode';
import { defineScript } from './redis-script';

/** Redis's own clock, in milliseconds, as `now`: every instance's leases are measured on one clock. */
export const redisNowLua = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
`;

/** KEYS: a sorted set. ARGV: the lease, the member. Adds it, leased from now. */
const addLua = `${redisNowLua}
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[1]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/**
 * KEYS: a sorted set. ARGV: the lease, then members this instance holds. XX: a member removed
 * meanwhile (or whose lease ran out while Redis was away) is not brought back.
 */
const renewLua = `${redisNowLua}
for i = 2, #ARGV do
  redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]), ARGV[i])
end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/** KEYS: a sorted set. ARGV: members. Answers those whose lease has not run out. */
const aliveLua = `${redisNowLua}
local alive = {}
for i = 1, #ARGV do
  local score = redis.call('ZSCORE', KEYS[1], ARGV[i])
  if score and tonumber(score) > now then table.insert(alive, ARGV[i]) end
end
return alive
`;

/**
 * Members of Redis sorted sets that stand for work running on some instance, each scored with the
 * end of its lease. The instance doing the work renews its members every `leaseMs / 3` and removes
 * them when the work ends; an instance that dies (or loses Redis) stops renewing, so its members
 * stop counting `leaseMs` later without anyone cleaning up.
 */
export class LeasedMembers {
  private readonly addScript;
  private readonly renewScript;
  private readonly aliveScript;
  /** This instance's members: member → its set. */
  private readonly held = new Map<string, string>();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly redis: Redis,
    private readonly degraded: Pick<RedisDegradedMode, 'active' | 'failed'>,
    readonly leaseMs = 30_000,
  ) {
    this.addScript = defineScript(redis, 'leasedMemberAdd', 1, addLua);
    this.renewScript = defineScript(redis, 'leasedMemberRenew', 1, renewLua);
    this.aliveScript = defineScript(redis, 'leasedMembersAlive', 1, aliveLua);
    this.timer = setInterval(() => void this.renew(), leaseMs / 3);
    this.timer.unref();
  }

  /** Adds a member, leased from now; rejects when Redis fails. */
  async add(key: string, member: string) {
    await this.addScript([key], [this.leaseMs, member]);
    this.track(key, member);
  }

  /** Renews a member added by some other script until `remove`. */
  track(key: string, member: string) {
    this.held.set(member, key);
  }

  remove(key: string, member: string) {
    this.held.delete(member);
    // When this fails, the lease runs out by itself.
    this.redis.zrem(key, member).catch(() => {});
  }

  /** Of `members`, those whose lease has not run out; rejects when Redis fails. */
  async alive(key: string, members: string[]): Promise<Set<string>> {
    if (members.length === 0) return new Set();
    return new Set((await this.aliveScript([key], members)) as string[]);
  }

  close() {
    clearInterval(this.timer);
  }

  private async renew() {
    // A Redis known to be away is not asked: the leases run out there by themselves meanwhile.
    if (this.degraded.active) return;
    const bySet = new Map<string, string[]>();
    for (const [member, key] of this.held) bySet.set(key, [...(bySet.get(key) ?? []), member]);
    await Promise.all(
      [...bySet].map(([key, members]) =>
        this.renewScript([key], [this.leaseMs, ...members]).catch((error: unknown) =>
          this.degraded.failed(error, false),
        ),
      ),
    );
  }
}
