import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, multipartBody } from '../testing/files';
import { browser, hiddenFields } from '../testing/http-client';
import {
  authorizeUrl,
  bearer,
  demoPassword,
  freePort,
  postForm,
  startPlatform,
  type TestPlatform,
  tokensFor,
  webRedirectUri,
} from '../testing/platform-server';
import { testRedisEnv, testRedisUrl } from '../testing/redis';
import { startTcpProxy, type TcpProxy } from '../testing/tcp-proxy';

/** What a person and a client meet while the platform's Redis is gone, and once it is back. */
let proxy: TcpProxy;
/** An instance whose Redis is behind the proxy, and a second one of the same platform without it. */
let platform: TestPlatform;
let direct: TestPlatform;
let token: string;
beforeAll(async () => {
  const redis = new URL(testRedisUrl);
  proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  platform = await startPlatform({
    ...testRedisEnv(),
    REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
  });
  direct = await startPlatform({ REDIS_URL: testRedisUrl }, { shareWith: platform });
  token = (await tokensFor(platform, 'issuer@demo.test')).access_token;
});
afterAll(async () => {
  // Back, so that the platform's keys can be removed at close.
  await proxy?.restore();
  await direct?.close();
  await platform?.close();
  await proxy?.close();
});

const signIn = async (password: string) => {
  const person = browser();
  const params = { client_id: 'asset-manager', redirect_uri: webRedirectUri, state: 's', scope: 'full' };
  const page = await person.get(authorizeUrl(platform, params));
  return person.postForm(`${platform.url}/auth/login`, {
    ...hiddenFields(await page.text()),
    email: 'investor@demo.test',
    password,
  });
};
const me = () => fetch(`${platform.url}/v2/core/me`, { headers: bearer(token) });
const revoke = (value: string) =>
  postForm(`${platform.url}/v2/core/oauth/revoke`, { ...platform.webClient, token: value });
const upload = () =>
  fetch(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: bearer(token),
    body: multipartBody(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name: 'figures.csv', bytes: csv() },
    ),
  });

/** What /readyz says of Redis (within its 1 s cache and 2 s check timeout). */
const redisState = async () => {
  const answer = await fetch(`${platform.url}/readyz`);
  return [answer.status, ((await answer.json()) as { backends: { redis: string } }).backends.redis];
};

/** Waits until the platform has reconnected to Redis (it retries every 2 s at most). */
const backAfterOutage = () => expect.poll(redisState, { timeout: 30_000 }).toEqual([200, 'up']);

/** Runs `step` and answers its result with how long it took. */
async function timed<T>(step: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await step();
  return [result, performance.now() - started];
}

/**
 * Everything the platform answers while Redis is away, each within a few seconds (`other`: a
 * token that a revocation will try to end).
 */
async function expectDegradedAnswers(other: string) {
  // The API serves (rate limits let requests through; tokens are checked in the database).
  const [read, readMs] = await timed(me);
  expect(read.status).toBe(200);
  expect(readMs).toBeLessThan(10_000);
  expect((await upload()).status).toBe(201);

  // Sign-in counts attempts in this instance's memory, and checks the password (degraded mode).
  const [page, signInMs] = await timed(() => signIn(demoPassword));
  expect(page.status).toBe(303);
  expect(signInMs).toBeLessThan(20_000);

  // A revocation is committed in the database and answered; the token is refused from then on.
  const [revoked, revokeMs] = await timed(() => revoke(other));
  expect(revoked.status).toBe(200);
  expect(revokeMs).toBeLessThan(10_000);
  expect((await fetch(`${platform.url}/v2/core/me`, { headers: bearer(other) })).status).toBe(401);

  // /readyz names Redis as down, and stays 200: the instance serves, and a load balancer must not
  // take every instance out for it.
  await expect.poll(redisState).toEqual([200, 'down']);
}

describe('Redis unreachable at a request', () => {
  it('keeps the API, sign-in and revocation answering in degraded mode, and recovers when Redis is back', async () => {
    const other = (await tokensFor(platform, 'admin@demo.test')).access_token;
    await proxy.cut();
    await expectDegradedAnswers(other);

    await proxy.restore();
    // The platform reconnects by itself, and a revocation takes effect.
    await backAfterOutage();
    expect((await revoke(token)).status).toBe(200);
    expect((await me()).status).toBe(401);
  });

  it('does not hang when Redis accepts connections but never answers', async () => {
    token = (await tokensFor(platform, 'issuer@demo.test')).access_token;
    const other = (await tokensFor(platform, 'admin@demo.test')).access_token;
    proxy.stall();
    try {
      await expectDegradedAnswers(other);
    } finally {
      await proxy.restore();
    }
  });
});

describe('a subscription that goes silent without a word (a network fault)', () => {
  it('stops trusting the cache, so a token revoked on another instance is refused a second later', async () => {
    await backAfterOutage();
    token = (await tokensFor(platform, 'issuer@demo.test')).access_token;
    // Accepted, and so cached, by the instance behind the proxy.
    expect((await me()).status).toBe(200);
    proxy.stall();
    try {
      // The other instance revokes it; the message never reaches the silent subscription.
      expect(
        (await postForm(`${direct.url}/v2/core/oauth/revoke`, { ...direct.webClient, token })).status,
      ).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect((await me()).status).toBe(401);
    } finally {
      await proxy.restore();
    }
  });
});

describe('Redis unreachable at start', () => {
  it('stops the start with a message naming the Redis it could not reach', async () => {
    const port = await freePort();
    await expect(
      startPlatform({ ...testRedisEnv(), REDIS_URL: `redis://127.0.0.1:${port}` }),
    ).rejects.toThrow(`Redis at redis://127.0.0.1:${port} is not reachable`);
  });
});
