import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, multipartBody } from '../testing/files';
import { holdUpload, requestFrom } from '../testing/held-requests';
import { browser, hiddenFields } from '../testing/http-client';
import {
  authorizeUrl,
  bearer,
  demoPassword,
  postForm,
  startPlatform,
  type TestPlatform,
  tokensFor,
  webRedirectUri,
} from '../testing/platform-server';
import { testRedisEnv, testRedisUrl } from '../testing/redis';
import { storageState } from '../testing/storage-state';
import { startTcpProxy, type TcpProxy } from '../testing/tcp-proxy';

/**
 * Two instances of one platform whose shared Redis is behind a TCP fault proxy (issue 29, point 3):
 * while Redis is away, each runs in degraded mode: revocations still hold everywhere, sign-in still
 * checks passwords, limits hold per instance, and each says so once in its log.
 */
const budget = { token: 10, uploads: 2 };
const env = {
  SIGNING_KEY: randomBytes(32).toString('base64url'),
  TOKEN_RATE_LIMIT: String(budget.token),
  UPLOADS_PER_USER: String(budget.uploads),
};

interface Instance {
  platform: TestPlatform;
  /** What it logged, parsed. */
  lines: { level: number; msg: string; err?: unknown; stack?: unknown }[];
}

let proxy: TcpProxy;
let a: Instance;
let b: Instance;

async function instance(redisEnv: Record<string, string>, shareWith?: TestPlatform): Promise<Instance> {
  const lines: Instance['lines'] = [];
  const platform = await startPlatform(
    {
      ...env,
      ...redisEnv,
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      ...(shareWith ? { PLATFORM_PUBLIC_URL: shareWith.config.publicUrl } : {}),
    },
    {
      shareWith,
      logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line)) } },
    },
  );
  return { platform, lines };
}

beforeAll(async () => {
  const redis = new URL(testRedisUrl);
  proxy = await startTcpProxy({ host: redis.hostname, port: Number(redis.port || 6379) });
  a = await instance(testRedisEnv());
  b = await instance({}, a.platform);
});
afterAll(async () => {
  // Back, so that the platform's keys can be removed at close.
  await proxy?.restore();
  await b?.platform.close();
  await a?.platform.close();
  await proxy?.close();
});

const warnings = ({ lines }: Instance) => lines.filter((line) => line.level >= 40);
const saying = (instance: Instance, words: string) =>
  warnings(instance).filter((line) => line.msg.includes(words)).length;
const started = 'is unreachable';
const ended = 'answers again';

const me = ({ platform }: Instance, token: string) =>
  fetch(`${platform.url}/v2/core/me`, { headers: bearer(token) });
const revoke = ({ platform }: Instance, token: string) =>
  postForm(`${platform.url}/v2/core/oauth/revoke`, { ...platform.webClient, token });
const refresh = ({ platform }: Instance, refreshToken: string) =>
  postForm(`${platform.url}/v2/core/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...platform.webClient,
  });
const upload = ({ platform }: Instance, token: string) =>
  fetch(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: bearer(token),
    body: multipartBody(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name: 'figures.csv', bytes: csv() },
    ),
  });

/** A sign-in from a browser of its own (no device cookie), to the account given. */
async function signIn({ platform }: Instance, password: string, email = 'investor@demo.test') {
  const person = browser();
  const params = { client_id: 'asset-manager', redirect_uri: webRedirectUri, state: 's', scope: 'full' };
  const page = await person.get(authorizeUrl(platform, params));
  return person.postForm(`${platform.url}/auth/login`, {
    ...hiddenFields(await page.text()),
    email,
    password,
  });
}

/** A token request with a wrong client secret from `address`: it spends that address's token budget. */
const wrongTokenRequest = ({ platform }: Instance, address: string) =>
  requestFrom(address, `${platform.url}/v2/core/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: 'asset-manager',
      client_secret: 'wrong',
    }).toString(),
  });

/** Spends an address's token budget on `on`; answers what the next request gets on `on` and on `other`. */
async function afterTokenBudget(on: Instance, other: Instance, address: string) {
  for (let i = 0; i < budget.token; i++) expect(await wrongTokenRequest(on, address)).toBe(401);
  return [await wrongTokenRequest(on, address), await wrongTokenRequest(other, address)];
}

/** Both instances run without Redis: each said so (a subscription that fails is noticed within 200 ms). */
const bothDegraded = () =>
  expect.poll(() => [saying(a, started), saying(b, started)], { timeout: 15_000 }).toEqual([1, 1]);
const bothBack = () =>
  expect.poll(() => [saying(a, ended), saying(b, ended)], { timeout: 30_000 }).toEqual([1, 1]);

describe('Redis unreachable (connections refused): degraded mode', () => {
  it('commits a revocation on A and answers 200, and B refuses the revoked tokens at once', async () => {
    const signedOut = await tokensFor(a.platform, 'issuer@demo.test');
    const revokedAccess = (await tokensFor(a.platform, 'admin@demo.test')).access_token;
    // B has just accepted (and cached) both access tokens.
    expect((await me(b, signedOut.access_token)).status).toBe(200);
    expect((await me(b, revokedAccess)).status).toBe(200);
    await proxy.cut();
    await bothDegraded();

    // Sign-out: the refresh token and its whole family.
    expect((await revoke(a, signedOut.refresh_token)).status).toBe(200);
    expect((await me(b, signedOut.access_token)).status).toBe(401);
    const refused = await refresh(b, signedOut.refresh_token);
    expect(refused.status).toBe(400);
    expect(await refused.json()).toMatchObject({ error: 'invalid_grant' });
    // An access token alone.
    expect((await revoke(a, revokedAccess)).status).toBe(200);
    expect((await me(b, revokedAccess)).status).toBe(401);
    expect((await me(a, revokedAccess)).status).toBe(401);
  });

  it('checks passwords at sign-in: a wrong one is told it is incorrect, the right one signs in', async () => {
    const wrong = await signIn(a, 'not-the-password');
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('The email or password is incorrect.');
    expect((await signIn(b, demoPassword)).status).toBe(303);
  });

  it('still limits sign-in attempts and token requests, each instance counting its own', async () => {
    const guessed = 'guessed@demo.test';
    for (let i = 0; i < 5; i++) expect((await signIn(a, `guess-${i}`, guessed)).status).toBe(401);
    const held = await signIn(a, `guess-5`, guessed);
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
    // B has its own count: its password check still answers.
    expect((await signIn(b, 'guess-6', guessed)).status).toBe(401);

    expect(await afterTokenBudget(a, b, '127.0.0.21')).toEqual([429, 401]);
  });

  it('still caps a user’s uploads in flight on each instance', async () => {
    const { access_token } = await tokensFor(a.platform, 'issuer@demo.test');
    // Each past 5 MB, so that the bucket shows it under way (a multipart upload); their places
    // in the cap are in A's memory, where no test can look.
    const held = Array.from({ length: budget.uploads }, () =>
      holdUpload(a.platform, access_token, undefined, 6 * 1024 * 1024),
    );
    await expect
      .poll(async () => (await storageState(a.platform.config)).temporary, { timeout: 30_000 })
      .toBe(budget.uploads);
    const refused = await upload(a, access_token);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('too_many_uploads');
    // B counts its own.
    expect((await upload(b, access_token)).status).toBe(201);
    for (const h of held) h.finish();
    expect(await Promise.all(held.map((h) => h.status))).toEqual([201, 201]);
  });

  it('logged one warning per instance for all of it, without a stack trace', () => {
    for (const instance of [a, b]) {
      expect(saying(instance, started)).toBe(1);
      const line = warnings(instance).find((entry) => entry.msg.includes(started))!;
      expect(line.msg).toContain(`Redis at redis://127.0.0.1:${proxy.port}`);
      expect(line.msg).toContain('memory');
      // Every request above went without Redis, and none of them logged a line of its own.
      expect(warnings(instance).map((line) => line.msg)).toHaveLength(1);
      expect(instance.lines.filter((entry) => entry.err !== undefined || entry.stack !== undefined)).toEqual(
        [],
      );
    }
  });

  it('returns to normal by itself once Redis answers: one line, and shared limits again', async () => {
    await proxy.restore();
    await bothBack();
    expect(warnings(a)).toHaveLength(2);
    expect(await afterTokenBudget(a, b, '127.0.0.22')).toEqual([429, 429]);
    // Revocations go through Redis again.
    const { access_token } = await tokensFor(a.platform, 'issuer@demo.test');
    expect((await me(b, access_token)).status).toBe(200);
    expect((await revoke(a, access_token)).status).toBe(200);
    expect((await me(b, access_token)).status).toBe(401);
  });
});

describe('Redis that accepts connections but never answers', () => {
  it('goes into degraded mode too: revocation holds on B, sign-in checks passwords, then back', async () => {
    const { access_token } = await tokensFor(a.platform, 'admin@demo.test');
    expect((await me(b, access_token)).status).toBe(200);
    proxy.stall();
    try {
      await expect.poll(() => [saying(a, started), saying(b, started)], { timeout: 15_000 }).toEqual([2, 2]);
      expect((await revoke(a, access_token)).status).toBe(200);
      expect((await me(b, access_token)).status).toBe(401);
      expect((await signIn(b, 'not-the-password')).status).toBe(401);
      expect((await signIn(a, demoPassword)).status).toBe(303);
    } finally {
      await proxy.restore();
    }
    await expect.poll(() => [saying(a, ended), saying(b, ended)], { timeout: 30_000 }).toEqual([2, 2]);
  });
});
