import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { csv, multipartBody } from '../testing/files';
import { browser, hiddenFields } from '../testing/http-client';
import {
  authorizeUrl,
  bearer,
  demoPassword,
  exchangeCodeJson,
  postForm,
  startPlatform,
  type TestPlatform,
  type TokenSet,
  tokensFor,
  webRedirectUri,
} from '../testing/platform-server';
import { openDatabase } from '../db/database';
import { testRedisEnv } from '../testing/redis';
import { holdUpload, requestFrom } from '../testing/held-requests';
import { uploadsUnderWay } from '../testing/storage-state';

/**
 * Two instances of one platform, as behind a load balancer: each its own process state, data
 * directory and port; one database, one Redis, one SIGNING_KEY and one public URL.
 */
const signingKey = randomBytes(32).toString('base64url');
// Requests from 127.0.0.1 (all but the rate-limit tests') spend the API and token budgets too.
const budget = { api: 200, token: 30, uploads: 2 };
const env = {
  SIGNING_KEY: signingKey,
  API_RATE_LIMIT: String(budget.api),
  TOKEN_RATE_LIMIT: String(budget.token),
  UPLOADS_PER_USER: String(budget.uploads),
};

let a: TestPlatform;
let b: TestPlatform;
beforeAll(async () => {
  a = await startPlatform({ ...env, ...testRedisEnv() });
  b = await startPlatform({ ...env, PLATFORM_PUBLIC_URL: a.config.publicUrl }, { shareWith: a });
});
afterAll(async () => {
  await b?.close();
  await a?.close();
});

const meOf = (platform: TestPlatform, token: string) =>
  fetch(`${platform.url}/v2/core/me`, { headers: bearer(token) });

const revoke = (platform: TestPlatform, token: string) =>
  postForm(`${platform.url}/v2/core/oauth/revoke`, { ...platform.webClient, token });

const refresh = (platform: TestPlatform, refreshToken: string) =>
  postForm(`${platform.url}/v2/core/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    ...platform.webClient,
  });

/**
 * The issue asks for "within 1 s of the revoke's answer"; these tests ask for more, and without a
 * clock: the first request after the answer is refused. Redis queues the revocation to every
 * subscriber before it acknowledges the publish, so it is in the other instance's hands before the
 * revoke is even answered; a clock measured on a busy machine would only add noise.
 */
async function expectRefusedAtOnce(platform: TestPlatform, token: string) {
  const answer = await meOf(platform, token);
  expect(answer.status).toBe(401);
}

const assetIdOf = async (response: Response) =>
  ((await response.json()) as { asset: { id: number } }).asset.id;

/** A plain upload of a small CSV to an investment, with an Idempotency-Key when given. */
const upload = (platform: TestPlatform, token: string, idempotencyKey?: string) =>
  fetch(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: { ...bearer(token), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
    body: multipartBody(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name: 'figures.csv', bytes: csv() },
    ),
  });

describe('a sign-in that goes to whichever instance the balancer picks', () => {
  it('signs in through pages, CSRF, session, consent and code answered by alternating instances', async () => {
    const person = browser();
    const params = { client_id: 'asset-manager', redirect_uri: webRedirectUri, state: 's-1', scope: 'full' };
    // The sign-in page from A; its form (CSRF token, seed cookie) posted to B.
    const loginPage = await person.get(authorizeUrl(a, params));
    expect(loginPage.status).toBe(200);
    const signedIn = await person.postForm(`${b.url}/auth/login`, {
      ...hiddenFields(await loginPage.text()),
      email: 'issuer@demo.test',
      password: demoPassword,
    });
    expect(signedIn.status).toBe(303);
    // The session B started is known to A: A shows the consent page (no second sign-in).
    const consentPage = await person.get(new URL(signedIn.headers.get('location')!, a.url).toString());
    const consentHtml = await consentPage.text();
    expect(consentHtml).toContain('name="decision"');
    // The consent form from A, posted to B, which issues the code.
    const consented = await person.postForm(`${b.url}/auth/login/oauth/authorize`, {
      ...hiddenFields(consentHtml),
      decision: 'allow',
    });
    expect(consented.status).toBe(303);
    const redirect = new URL(consented.headers.get('location')!);
    expect(redirect.searchParams.get('iss')).toBe(a.config.publicUrl);
    // The code B issued is redeemed at A.
    const exchanged = await exchangeCodeJson(a, { code: redirect.searchParams.get('code'), state: 's-1' });
    expect(exchanged.status).toBe(200);
    const tokens = (await exchanged.json()) as TokenSet;
    // The token A issued works on B; its refresh at B gives a token that works on A.
    const me = await meOf(b, tokens.access_token);
    expect(me.status).toBe(200);
    expect(meSchema.parse(await me.json()).user.email).toBe('issuer@demo.test');
    const refreshed = await refresh(b, tokens.refresh_token);
    expect(refreshed.status).toBe(200);
    expect((await meOf(a, ((await refreshed.json()) as TokenSet).access_token)).status).toBe(200);

    // Consent given through B is remembered by A: the next authorize goes straight back with a code.
    const again = await person.get(authorizeUrl(a, { ...params, state: 's-2' }));
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });

  it('replays an Idempotency-Key on the other instance instead of making a second asset', async () => {
    const { access_token } = await tokensFor(a, 'issuer@demo.test');
    const first = await upload(a, access_token, 'same-upload-1');
    expect(first.status).toBe(201);
    const second = await upload(b, access_token, 'same-upload-1');
    expect(second.status).toBe(201);
    expect(await assetIdOf(second)).toBe(await assetIdOf(first));
  });

  it('completes an upload with an Idempotency-Key on A while another instance starts (a rolling restart)', async () => {
    const { access_token } = await tokensFor(a, 'issuer@demo.test');
    const running = holdUpload(a, access_token, 'running-upload-1');
    await expect.poll(() => uploadsUnderWay(a.config)).toBe(1);
    // An instance starting releases the keys a crash left in progress, but not one running on A.
    const starting = await startPlatform(
      { ...env, PLATFORM_PUBLIC_URL: a.config.publicUrl },
      { shareWith: a },
    );
    await starting.close();
    // The same request again, to B: the first one still runs.
    const retry = holdUpload(b, access_token, 'running-upload-1');
    retry.finish();
    const refused = await retry.answer;
    expect(refused.status).toBe(409);
    expect((JSON.parse(refused.body) as { code: string }).code).toBe('request_in_progress');

    running.finish();
    const first = await running.answer;
    expect(first.status, first.body).toBe(201);
    // Once it is done, the same request to B answers what it answered.
    const replay = holdUpload(b, access_token, 'running-upload-1');
    replay.finish();
    const replayed = await replay.answer;
    expect(replayed.status).toBe(201);
    expect(replayed.body).toBe(first.body);
  });

  it('lets a retry take over an Idempotency-Key whose instance is gone', async () => {
    const { access_token } = await tokensFor(a, 'issuer@demo.test');
    const me = meSchema.parse(await (await meOf(a, access_token)).json());
    // What an instance killed mid-upload leaves: the key in progress, and no lease in Redis (its
    // lease ran out 30 s after it stopped renewing it).
    const db = await openDatabase(a.config);
    try {
      await db
        .insertInto('idempotency_keys')
        .values({ user_id: me.user.id, key: 'orphaned-upload-1', created_at: Date.now() })
        .execute();
    } finally {
      await db.destroy();
    }
    expect((await upload(b, access_token, 'orphaned-upload-1')).status).toBe(201);
  });

  it('refuses on B a form whose page came from an instance with another signing key', async () => {
    // The control: an instance with a SIGNING_KEY of its own.
    const other = await startPlatform(
      { PLATFORM_PUBLIC_URL: a.config.publicUrl, SIGNING_KEY: randomBytes(32).toString('base64url') },
      { shareWith: a },
    );
    try {
      const person = browser();
      const page = await person.get(
        authorizeUrl(other, {
          client_id: 'asset-manager',
          redirect_uri: webRedirectUri,
          state: 's',
          scope: 'full',
        }),
      );
      const answer = await person.postForm(`${b.url}/auth/login`, {
        ...hiddenFields(await page.text()),
        email: 'issuer@demo.test',
        password: demoPassword,
      });
      expect(answer.status).toBe(403);
    } finally {
      await other.close();
    }
  });
});

describe('revocation reaches every instance within a second', () => {
  it('refuses on B an access token revoked on A, though B had just accepted (and cached) it', async () => {
    const { access_token } = await tokensFor(a);
    expect((await meOf(b, access_token)).status).toBe(200);
    expect((await meOf(b, access_token)).status).toBe(200);
    expect((await revoke(a, access_token)).status).toBe(200);
    await expectRefusedAtOnce(b, access_token);
  });

  it('ends the whole family on A when its refresh token is revoked on B (sign-out)', async () => {
    const { access_token, refresh_token } = await tokensFor(a);
    expect((await meOf(a, access_token)).status).toBe(200);
    expect((await revoke(b, refresh_token)).status).toBe(200);
    await expectRefusedAtOnce(a, access_token);
  });

  it('ends the family on B when a rotated refresh token is used again on A (R1)', async () => {
    const first = await tokensFor(a);
    const rotated = await refresh(a, first.refresh_token);
    const { access_token } = (await rotated.json()) as TokenSet;
    expect((await meOf(b, access_token)).status).toBe(200);
    expect((await refresh(a, first.refresh_token)).status).toBe(400);
    await expectRefusedAtOnce(b, access_token);
  });

  it('ends the tokens on B when their code is redeemed again on A (T2)', async () => {
    const person = browser();
    const params = { client_id: 'asset-manager', redirect_uri: webRedirectUri, state: 's', scope: 'full' };
    const page = await person.get(authorizeUrl(a, params));
    const signedIn = await person.postForm(`${a.url}/auth/login`, {
      ...hiddenFields(await page.text()),
      email: 'admin@demo.test',
      password: demoPassword,
    });
    const consentHtml = await (
      await person.get(new URL(signedIn.headers.get('location')!, a.url).href)
    ).text();
    const consented = await person.postForm(`${a.url}/auth/login/oauth/authorize`, {
      ...hiddenFields(consentHtml),
      decision: 'allow',
    });
    const code = new URL(consented.headers.get('location')!).searchParams.get('code');
    const tokens = (await (await exchangeCodeJson(a, { code, state: 's' })).json()) as TokenSet;
    expect((await meOf(b, tokens.access_token)).status).toBe(200);
    expect((await exchangeCodeJson(a, { code, state: 's' })).status).toBe(400);
    await expectRefusedAtOnce(b, tokens.access_token);
  });
});

describe('limits spent on one instance hold on the other', () => {
  it('answers 429 on B once API requests to A have spent the address budget', async () => {
    const badToken = bearer('guessed-token');
    for (let i = 0; i < budget.api; i++)
      expect(await requestFrom('127.0.0.3', `${a.url}/v2/core/me`, { headers: badToken })).toBe(401);
    expect(await requestFrom('127.0.0.3', `${b.url}/v2/core/me`, { headers: badToken })).toBe(429);
    // Another address still has its budget.
    expect(await requestFrom('127.0.0.4', `${b.url}/v2/core/me`, { headers: badToken })).toBe(401);
  });

  it('answers 429 on B once token requests to A have spent the address budget', async () => {
    const wrong = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: 'asset-manager',
      client_secret: 'wrong',
    }).toString();
    const tokenRequest = (platform: TestPlatform, address: string) =>
      requestFrom(address, `${platform.url}/v2/core/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: wrong,
      });
    for (let i = 0; i < budget.token; i++) expect(await tokenRequest(a, '127.0.0.5')).toBe(401);
    expect(await tokenRequest(b, '127.0.0.5')).toBe(429);
    expect(await tokenRequest(b, '127.0.0.6')).toBe(401);
  });

  it('holds an account on B after wrong passwords on A (sign-in throttling)', async () => {
    const attacker = browser();
    const params = {
      client_id: 'asset-manager',
      redirect_uri: webRedirectUri,
      state: 's',
      scope: 'full',
      prompt: 'login',
    };
    const signIn = async (platform: TestPlatform, password: string) => {
      const page = await attacker.get(authorizeUrl(platform, params));
      return attacker.postForm(`${platform.url}/auth/login`, {
        ...hiddenFields(await page.text()),
        email: 'investor@demo.test',
        password,
      });
    };
    for (let i = 0; i < 5; i++) expect((await signIn(a, `guess-${i}`)).status).toBe(401);
    const held = await signIn(b, demoPassword);
    expect(held.status).toBe(429);
    expect(Number(held.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('caps a user’s uploads in flight across instances', async () => {
    const { access_token } = await tokensFor(a, 'issuer@demo.test');
    const held = Array.from({ length: budget.uploads }, () => holdUpload(a, access_token));
    // Both are being staged on A; the third, sent to B, finds no place.
    await expect.poll(() => uploadsUnderWay(a.config)).toBe(budget.uploads);
    const refused = await upload(b, access_token);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe('too_many_uploads');
    for (const h of held) h.finish();
    expect(await Promise.all(held.map((h) => h.status))).toEqual([201, 201]);
    expect((await upload(b, access_token)).status).toBe(201);
  });
});
