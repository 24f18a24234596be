import type { Redis } from 'ioredis';
import type { RedisDegradedMode } from '../shared-state/degraded-mode';
import { defineScript } from '../shared-state/redis-script';
import {
  type SignInAttempt,
  SignInLimiter,
  type SignInRules,
  type SignInThrottle,
  type SignInTurn,
  type ThrottleRule,
} from './sign-in-limiter';

/**
 * Lua shared by both scripts: a key is a hash {count, last}; `current` forgets it a rule's
 * `forgetAfterMs` after its last failure, as the memory counter does. Redis also expires it then
 * (real time), which bounds memory the way the memory counter's key limit does.
 */
const counterLua = `
local function current(key, now, rule)
  local v = redis.call('HMGET', key, 'count', 'last')
  if not v[1] then return nil, nil end
  local count, last = tonumber(v[1]), tonumber(v[2])
  if now - last > rule[4] then
    redis.call('DEL', key)
    return nil, nil
  end
  return count, last
end
local function waitMs(key, now, rule)
  local count, last = current(key, now, rule)
  if not count or count < rule[1] then return 0 end
  local delay = math.min(rule[3], rule[2] * 2 ^ (count - rule[1]))
  return math.max(0, last + delay - now)
end
local function charge(key, now, nowText, rule)
  local count, last = current(key, now, rule)
  redis.call('HSET', key, 'count', (count or 0) + 1, 'last', nowText)
  redis.call('PEXPIRE', key, rule[4])
  return count, last
end
local function rule(i)
  return {tonumber(ARGV[i]), tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), tonumber(ARGV[i + 3])}
end
`;

/**
 * SignInLimiter.begin in one step, so that attempts on any instance at once are held like attempts
 * in a row (D3). KEYS: account, address, device. ARGV: now, has-device, then the account, address
 * and device rules. Answers {wait, 1} for a device's attempt, else {wait, 0, the address's count
 * and last failure before this attempt (-1 when none)}.
 */
const beginLua = `${counterLua}
local now = tonumber(ARGV[1])
local accountRule, addressRule, deviceRule = rule(3), rule(7), rule(11)
if ARGV[2] == '1' and waitMs(KEYS[3], now, deviceRule) == 0 then
  charge(KEYS[3], now, ARGV[1], deviceRule)
  return {0, 1}
end
local wait = math.max(waitMs(KEYS[1], now, accountRule), waitMs(KEYS[2], now, addressRule))
if wait > 0 then return {wait, 0} end
charge(KEYS[1], now, ARGV[1], accountRule)
local count, last = charge(KEYS[2], now, ARGV[1], addressRule)
return {0, 0, count or -1, last or -1}
`;

/**
 * A success: the account is cleared, and the address gets this attempt back: exactly what it was
 * when nothing was charged since, else one failure fewer (SignInLimiter's take-back). KEYS:
 * account, address. ARGV: the address's count and last failure as charged, and before (-1: none).
 */
const succeededLua = `
redis.call('DEL', KEYS[1])
local v = redis.call('HMGET', KEYS[2], 'count', 'last')
if not v[1] then return 0 end
if v[1] == ARGV[1] and v[2] == ARGV[2] then
  if ARGV[3] == '-1' then
    redis.call('DEL', KEYS[2])
  else
    redis.call('HSET', KEYS[2], 'count', ARGV[3], 'last', ARGV[4])
  end
else
  redis.call('HSET', KEYS[2], 'count', math.max(0, tonumber(v[1]) - 1))
end
return 1
`;

const ruleArgs = (rule: ThrottleRule) => [
  rule.freeFailures,
  rule.firstDelayMs,
  rule.maxDelayMs,
  rule.forgetAfterMs,
];

/**
 * The sign-in rules of sign-in-limiter.ts, kept in Redis so that every instance counts together.
 *
 * While Redis is away (degraded mode) each instance counts in its own memory, with the very
 * limiter the embedded default uses: passwords are still checked and guessing still slowed, each
 * instance holding its own counts (bounded as that limiter is). Refusing every sign-in instead
 * would lock everyone out for as long as Redis is gone.
 */
export class RedisSignInLimiter implements SignInThrottle {
  private readonly beginScript;
  private readonly succeededScript;
  private readonly rules: (string | number)[];
  private readonly fallback: SignInLimiter;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    rules: SignInRules,
    private readonly clock: () => number,
    private readonly degraded: RedisDegradedMode,
  ) {
    this.fallback = new SignInLimiter(rules, clock);
    this.beginScript = defineScript(redis, 'signInBegin', 3, beginLua);
    this.succeededScript = defineScript(redis, 'signInSucceeded', 2, succeededLua);
    this.rules = [...ruleArgs(rules.account), ...ruleArgs(rules.address), ...ruleArgs(rules.device)];
  }

  async begin(attempt: SignInAttempt): Promise<SignInTurn> {
    if (this.degraded.active) {
      this.degraded.skipped();
      return this.fallback.begin(attempt);
    }
    const keys = {
      account: `${this.prefix}sign-in:account:${attempt.account.trim().toLowerCase()}`,
      address: `${this.prefix}sign-in:address:${attempt.address}`,
      device: `${this.prefix}sign-in:device:${attempt.device ?? ''}`,
    };
    const now = String(this.clock());
    const hasDevice = attempt.device === undefined ? '0' : '1';
    let answer: number[];
    try {
      answer = (await this.beginScript(
        [keys.account, keys.address, keys.device],
        [now, hasDevice, ...this.rules],
      )) as number[];
    } catch (error) {
      this.degraded.failed(error);
      return this.fallback.begin(attempt);
    }
    const [waitMs, byDevice, beforeCount, beforeLast] = answer as [number, number, number?, number?];
    if (waitMs > 0) return { waitMs, succeeded: () => {} };
    if (byDevice === 1) return { waitMs: 0, succeeded: () => this.settle(this.redis.del(keys.device)) };
    const charged = beforeCount === -1 ? ['1', now] : [String(beforeCount! + 1), now];
    const before = beforeCount === -1 ? ['-1', '-1'] : [String(beforeCount), String(beforeLast)];
    return {
      waitMs: 0,
      succeeded: () =>
        this.settle(this.succeededScript([keys.account, keys.address], [...charged, ...before])),
    };
  }

  /**
   * After a right password the person is signed in even when Redis fails here: the attempt then
   * stays counted as a failure, which only ever makes the rules stricter.
   */
  private async settle(step: Promise<unknown>) {
    await step.catch((error: unknown) => this.degraded.failed(error, false));
  }
}
