import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemSchema } from '../../shared/api/problem';
import { bearer, startPlatform, tokensFor, type TestPlatform } from '../testing/platform-server';

const budget = 10;
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startPlatform({ API_RATE_LIMIT: String(budget) });
});
afterAll(() => platform.close());

/** A GET sent from another loopback address, as a second client on the network would. */
function getFrom(localAddress: string, url: string, headers: Record<string, string>) {
  return answerFrom(localAddress, url, headers).then((answer) => answer.status);
}

function answerFrom(localAddress: string, url: string, headers: Record<string, string>) {
  return new Promise<{ status: number; remaining: number }>((resolve, reject) => {
    const req = request(url, { localAddress, headers }, (response) => {
      response.resume();
      response.on('end', () =>
        resolve({
          status: response.statusCode!,
          remaining: Number(response.headers['x-ratelimit-remaining']),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('H3 requests refused at authentication count against the per-address rate limit', () => {
  it('answers 429 with Retry-After once bad-token requests have spent the budget', async () => {
    const badToken = bearer('stolen-or-guessed-token');
    const statuses: number[] = [];
    for (let i = 0; i < budget; i++) {
      // Known and unknown paths, with a bad token or none: each is refused at authentication.
      const path = i % 2 === 0 ? '/v2/core/me' : '/v2/core/no-such-thing';
      statuses.push((await fetch(`${platform.url}${path}`, { headers: i % 3 ? badToken : {} })).status);
    }
    expect(statuses).toEqual(Array(budget).fill(401));

    const limited = await fetch(`${platform.url}/v2/core/me`, { headers: badToken });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(problemSchema.parse(await limited.json()).code).toBe('rate_limited');
    // Without a token at all, the same.
    expect((await fetch(`${platform.url}/v2/core/assets/1`)).status).toBe(429);

    // Counted per address: another client is not held back by this one.
    expect(await getFrom('127.0.0.2', `${platform.url}/v2/core/me`, badToken)).toBe(401);
  });

  it('spends one budget per address on the API and the other routes alike', async () => {
    const metadata = `${platform.url}/.well-known/oauth-authorization-server`;
    const api = `${platform.url}/v2/core/me`;
    const statuses: number[] = [];
    for (let i = 0; i < budget; i++) {
      statuses.push(await getFrom('127.0.0.4', i % 2 === 0 ? metadata : api, {}));
    }
    expect(statuses).toEqual(Array.from({ length: budget }, (_, i) => (i % 2 === 0 ? 200 : 401)));
    // Half the budget went on each: with a budget of its own, either would still answer.
    expect(await getFrom('127.0.0.4', api, {})).toBe(429);
    expect(await getFrom('127.0.0.4', metadata, {})).toBe(429);
  });
});

describe('the per-address rate limit', () => {
  const roomyBudget = 100;
  let roomy: TestPlatform;
  beforeAll(async () => {
    roomy = await startPlatform({ API_RATE_LIMIT: String(roomyBudget) });
  });
  afterAll(() => roomy.close());

  it('counts an API request that passes authentication once, whatever route answers it', async () => {
    const { access_token } = await tokensFor(roomy, 'issuer@demo.test');
    const paths = ['/v2/core/me', '/v2/core/assets/999999', '/v2/core/products/1'];
    // From an address of its own: the sign-in above spent some of 127.0.0.1's budget. Counted
    // twice, the budget would run out halfway.
    for (let i = 0; i < roomyBudget; i++) {
      const answer = await answerFrom('127.0.0.3', `${roomy.url}${paths[i % 3]}`, bearer(access_token));
      expect([200, 404]).toContain(answer.status);
      // The counters come with a 429 only.
      expect(answer.remaining).toBeNaN();
    }
    const refused = await answerFrom('127.0.0.3', `${roomy.url}/v2/core/me`, bearer(access_token));
    expect(refused).toEqual({ status: 429, remaining: 0 });
  });
});
