import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from '../testing/platform-server';

// Behind nginx (deploy/), every request reaches the platform from nginx's address; the per-address
// rate limits must count clients, not the proxy, and only a trusted proxy may say who the client is.
const budget = 4;

/** The status of one unauthenticated request said to come from `client`. */
const statusFrom = async (platform: TestPlatform, client: string) =>
  (await fetch(`${platform.url}/v2/core/me`, { headers: { 'x-forwarded-for': client } })).status;

/** Statuses of `budget + 1` such requests. */
async function spend(platform: TestPlatform, client: string) {
  const statuses: number[] = [];
  for (let i = 0; i <= budget; i++) statuses.push(await statusFrom(platform, client));
  return statuses;
}
const spentBudget = [...Array<number>(budget).fill(401), 429];

describe('TRUST_PROXY: X-Forwarded-For names the client only when it comes from a trusted proxy', () => {
  let trusting: TestPlatform;
  let untrusting: TestPlatform;
  beforeAll(async () => {
    [trusting, untrusting] = await Promise.all([
      startPlatform({ API_RATE_LIMIT: String(budget), TRUST_PROXY: '127.0.0.1' }),
      startPlatform({ API_RATE_LIMIT: String(budget) }),
    ]);
  });
  afterAll(() => Promise.all([trusting.close(), untrusting.close()]));

  it('counts each client behind a trusted proxy on its own', async () => {
    expect(await spend(trusting, '203.0.113.7')).toEqual(spentBudget);
    // Another client behind the same proxy still has its whole budget.
    expect(await spend(trusting, '198.51.100.9')).toEqual(spentBudget);
  });

  it('ignores the header from anyone else: a client cannot pick a fresh address for each request', async () => {
    expect(await spend(untrusting, '203.0.113.7')).toEqual(spentBudget);
    expect(await statusFrom(untrusting, '198.51.100.9')).toBe(429);
  });
});

describe('IPv6 clients behind a trusted proxy', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await startPlatform({ API_RATE_LIMIT: String(budget), TRUST_PROXY: '127.0.0.1' });
  });
  afterAll(() => platform.close());

  it('counts a /64 as one client: addresses inside it share one budget', async () => {
    expect(await spend(platform, '2001:db8:1:2::a')).toEqual(spentBudget);
    expect(await statusFrom(platform, '2001:db8:1:2:ffff::1')).toBe(429);
    // The next /64 is another client.
    expect(await spend(platform, '2001:db8:1:3::a')).toEqual(spentBudget);
  });

  it('counts an IPv4-mapped address as its IPv4 address', async () => {
    expect(await spend(platform, '192.0.2.44')).toEqual(spentBudget);
    expect(await statusFrom(platform, '::ffff:192.0.2.44')).toBe(429);
  });
});
