import { afterAll, describe, expect, it } from 'vitest';
import { removeRedisKeys, testRedisClient, testRedisEnv, testWithRedis } from '../testing/redis';
import { RedisDegradedMode } from '../shared-state/degraded-mode';
import { RedisSignInLimiter } from './redis-sign-in-limiter';
import { defaultSignInRules, SignInLimiter, type SignInThrottle } from './sign-in-limiter';

// The rules on the limiter this run uses: memory, or Redis under TEST_REDIS=1 (platform-scaled).
const redis = testWithRedis ? testRedisClient() : undefined;
const prefix = testRedisEnv().REDIS_KEY_PREFIX;
afterAll(async () => {
  if (!redis) return;
  redis.disconnect();
  await removeRedisKeys(prefix);
});

let limiters = 0;
/** Redis stays up in these tests: degraded mode would only log. */
const degraded = (client: NonNullable<typeof redis>) =>
  new RedisDegradedMode('the test Redis', () => client.ping(), console);
function limiter() {
  let now = 1_000_000;
  const clock = { advance: (ms: number) => (now += ms) };
  const throttle: SignInThrottle = redis
    ? new RedisSignInLimiter(redis, `${prefix}${limiters++}:`, defaultSignInRules, () => now, degraded(redis))
    : new SignInLimiter(defaultSignInRules, () => now);
  return { limiter: throttle, clock };
}

const minute = 60_000;

describe(`H6 sign-in limiter (${redis ? 'Redis' : 'memory'})`, () => {
  it('counts an attempt from the moment it starts, so a burst is held like a sequence (D3)', async () => {
    const { limiter: l } = limiter();
    const turns = await Promise.all(
      Array.from({ length: 7 }, () => l.begin({ account: 'a@x.test', address: '10.0.0.1' })),
    );
    expect(turns.map((t) => t.waitMs > 0)).toEqual([false, false, false, false, false, true, true]);
  });

  it('gives a successful attempt back to its address, without starting a new wait there', async () => {
    const { limiter: l, clock } = limiter();
    for (let i = 0; i < 20; i++) await l.begin({ account: `user-${i}@x.test`, address: '10.0.0.1' });
    expect((await l.begin({ account: 'owner@x.test', address: '10.0.0.1' })).waitMs).toBeGreaterThan(0);
    clock.advance(minute);
    // The wait is over; a person with the right password signs in.
    await (await l.begin({ account: 'owner@x.test', address: '10.0.0.1' })).succeeded();
    expect((await l.begin({ account: 'other@x.test', address: '10.0.0.1' })).waitMs).toBe(0);
    // That attempt (a failure) was the 21st: the next one waits 2 minutes.
    expect((await l.begin({ account: 'third@x.test', address: '10.0.0.1' })).waitMs).toBe(2 * minute);
  });

  it('clears an account on success, and forgets failures a day after the last one', async () => {
    const { limiter: l, clock } = limiter();
    for (let i = 0; i < 5; i++) await l.begin({ account: 'a@x.test', address: `10.0.0.${i}` });
    expect((await l.begin({ account: ' A@X.test ', address: '10.0.1.1' })).waitMs).toBe(minute);
    clock.advance(minute);
    await (await l.begin({ account: 'a@x.test', address: '10.0.1.1' })).succeeded();
    expect((await l.begin({ account: 'a@x.test', address: '10.0.1.2' })).waitMs).toBe(0);

    for (let i = 0; i < 9; i++) await l.begin({ account: 'b@x.test', address: `10.0.2.${i}` });
    expect((await l.begin({ account: 'b@x.test', address: '10.0.3.1' })).waitMs).toBeGreaterThan(0);
    clock.advance(24 * 60 * minute + 1);
    expect((await l.begin({ account: 'b@x.test', address: '10.0.3.1' })).waitMs).toBe(0);
  });

  it('lets a known device through while its account is held, until the device itself has failed 10 times (D2)', async () => {
    const { limiter: l } = limiter();
    for (let i = 0; i < 5; i++) await l.begin({ account: 'a@x.test', address: '10.0.0.9' });
    expect((await l.begin({ account: 'a@x.test', address: '10.0.0.1' })).waitMs).toBeGreaterThan(0);
    const fromDevice = () => l.begin({ account: 'a@x.test', address: '10.0.0.1', device: 'nonce-1' });
    for (let i = 0; i < 10; i++) expect((await fromDevice()).waitMs).toBe(0);
    expect((await fromDevice()).waitMs).toBeGreaterThan(0);
    expect((await l.begin({ account: 'a@x.test', address: '10.0.0.1', device: 'nonce-2' })).waitMs).toBe(0);
  });
});
