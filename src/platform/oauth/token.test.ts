import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addClient,
  authorizeThroughPages,
  bearer,
  exchangeCodeJson,
  postForm,
  startPlatform,
  type TestPlatform,
  type TokenSet,
  webRedirectUri,
} from '../testing/platform-server';

let platform: TestPlatform;
let tokenUrl: string;
beforeAll(async () => {
  platform = await startPlatform();
  tokenUrl = `${platform.url}/v2/core/oauth/token`;
});
afterAll(() => platform.close());

const pkce = () => {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
};

async function freshCode(
  options: { state?: string; codeChallenge?: string; email?: string; scope?: string } = {},
) {
  const location = await authorizeThroughPages(platform, { state: 'st', ...options });
  return location.searchParams.get('code')!;
}

async function expectOAuthError(response: Response, status: number, error: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = (await response.json()) as { error: string; error_description?: string };
  expect(body.error).toBe(error);
  expect(JSON.stringify(body)).not.toMatch(/at .*\.ts:\d+/);
  return body;
}

const me = (token: string) => fetch(`${platform.url}/v2/core/me`, { headers: bearer(token) });
const refreshJson = (refreshToken: string, extra: Record<string, string> = {}, client = platform.webClient) =>
  fetch(`${tokenUrl}?grant_type=refresh_token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_id: client.client_id,
      client_secret: client.client_secret,
      refresh_token: refreshToken,
      ...extra,
    }),
  });

describe('T1 both body shapes', () => {
  it('answers the spec JSON shape with 200, no-store and a bearer token', async () => {
    const response = await exchangeCodeJson(platform, { code: await freshCode(), state: 'st' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const body = (await response.json()) as TokenSet;
    expect(body.token_type).toBe('bearer');
    expect(body.access_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.refresh_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(body.expires_in).toBe(3600);
    expect(body.scope).toBe('full');
    expect((await me(body.access_token)).status).toBe(200);
  });

  it('answers the standard form shape with 200 (credentials in the body or in HTTP Basic)', async () => {
    const { client_id, client_secret } = platform.webClient;
    const inBody = await postForm(tokenUrl, {
      grant_type: 'authorization_code',
      code: await freshCode(),
      redirect_uri: webRedirectUri,
      client_id,
      client_secret,
    });
    expect(inBody.status).toBe(200);
    expect(inBody.headers.get('cache-control')).toBe('no-store');
    expect(((await inBody.json()) as TokenSet).token_type).toBe('bearer');

    const basic = Buffer.from(`${client_id}:${client_secret}`).toString('base64');
    const inHeader = await postForm(
      tokenUrl,
      { grant_type: 'authorization_code', code: await freshCode(), redirect_uri: webRedirectUri },
      { authorization: `Basic ${basic}` },
    );
    expect(inHeader.status).toBe(200);
  });
});

describe('T2 a code used twice', () => {
  it('fails the second time and ends the tokens of the first', async () => {
    const code = await freshCode();
    const first = (await (await exchangeCodeJson(platform, { code, state: 'st' })).json()) as TokenSet;
    expect((await me(first.access_token)).status).toBe(200);
    await expectOAuthError(await exchangeCodeJson(platform, { code, state: 'st' }), 400, 'invalid_grant');
    expect((await me(first.access_token)).status).toBe(401);
    await expectOAuthError(await refreshJson(first.refresh_token), 400, 'invalid_grant');
  });
});

describe('T3 a replay with a wrong secret or verifier', () => {
  it('is refused without revoking anything', async () => {
    const { verifier, challenge } = pkce();
    const code = await freshCode({ codeChallenge: challenge });
    const first = (await (
      await exchangeCodeJson(platform, { code, state: 'st', code_verifier: verifier })
    ).json()) as TokenSet;
    await expectOAuthError(
      await exchangeCodeJson(platform, {
        code,
        state: 'st',
        code_verifier: verifier,
        client_secret: 'wrong',
      }),
      401,
      'invalid_client',
    );
    await expectOAuthError(
      await exchangeCodeJson(platform, { code, state: 'st', code_verifier: pkce().verifier }),
      400,
      'invalid_grant',
    );
    expect((await me(first.access_token)).status).toBe(200);
  });
});

describe('T4 two concurrent redemptions', () => {
  it('lets exactly one succeed', async () => {
    const code = await freshCode();
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => exchangeCodeJson(platform, { code, state: 'st' })),
    );
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    expect(responses.filter((r) => r.status === 400)).toHaveLength(4);
  });
});

describe('T5 an expired code', () => {
  it('fails after 60 seconds', async () => {
    const code = await freshCode();
    platform.advance(61_000);
    await expectOAuthError(await exchangeCodeJson(platform, { code, state: 'st' }), 400, 'invalid_grant');
  });
});

describe('T6 a code of another client', () => {
  it('fails with client B credentials', async () => {
    const other = await addClient(platform);
    const code = await freshCode();
    await expectOAuthError(
      await exchangeCodeJson(platform, {
        code,
        state: 'st',
        client_id: other.client_id,
        client_secret: other.client_secret,
      }),
      400,
      'invalid_grant',
    );
    // The rightful client can still redeem it: B's attempt revoked nothing.
    expect((await exchangeCodeJson(platform, { code, state: 'st' })).status).toBe(200);
  });
});

describe('T7 client authentication', () => {
  it('answers invalid_client (401) for a wrong secret', async () => {
    const response = await exchangeCodeJson(platform, {
      code: await freshCode(),
      state: 'st',
      client_secret: 'nope',
    });
    await expectOAuthError(response, 401, 'invalid_client');
  });
  it('refuses a secret in the query', async () => {
    const { client_id, client_secret } = platform.webClient;
    const response = await fetch(`${tokenUrl}?grant_type=authorization_code&client_secret=${client_secret}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id, code: await freshCode(), state: 'st' }),
    });
    await expectOAuthError(response, 400, 'invalid_request');
  });
  it('refuses Basic and body credentials together', async () => {
    const { client_id, client_secret } = platform.webClient;
    const basic = Buffer.from(`${client_id}:${client_secret}`).toString('base64');
    const response = await postForm(
      tokenUrl,
      {
        grant_type: 'authorization_code',
        code: await freshCode(),
        redirect_uri: webRedirectUri,
        client_id,
        client_secret,
      },
      { authorization: `Basic ${basic}` },
    );
    await expectOAuthError(response, 400, 'invalid_request');
  });
});

describe('T8 state and redirect_uri', () => {
  it('fails when state is missing or different in the JSON shape', async () => {
    await expectOAuthError(
      await exchangeCodeJson(platform, { code: await freshCode() }),
      400,
      'invalid_grant',
    );
    await expectOAuthError(
      await exchangeCodeJson(platform, { code: await freshCode(), state: 'other' }),
      400,
      'invalid_grant',
    );
  });
  it('fails when redirect_uri differs', async () => {
    const { client_id, client_secret } = platform.webClient;
    const response = await postForm(tokenUrl, {
      grant_type: 'authorization_code',
      code: await freshCode(),
      redirect_uri: `${webRedirectUri}/other`,
      client_id,
      client_secret,
    });
    await expectOAuthError(response, 400, 'invalid_grant');
    const json = await exchangeCodeJson(platform, {
      code: await freshCode(),
      state: 'st',
      redirect_uri: 'http://evil.test/cb',
    });
    await expectOAuthError(json, 400, 'invalid_grant');
  });
});

describe('T9 PKCE', () => {
  it('fails when the verifier is missing or wrong', async () => {
    const { challenge } = pkce();
    await expectOAuthError(
      await exchangeCodeJson(platform, { code: await freshCode({ codeChallenge: challenge }), state: 'st' }),
      400,
      'invalid_grant',
    );
    await expectOAuthError(
      await exchangeCodeJson(platform, {
        code: await freshCode({ codeChallenge: challenge }),
        state: 'st',
        code_verifier: pkce().verifier,
      }),
      400,
      'invalid_grant',
    );
  });
  it('fails when a verifier is sent but no challenge was given', async () => {
    await expectOAuthError(
      await exchangeCodeJson(platform, {
        code: await freshCode(),
        state: 'st',
        code_verifier: pkce().verifier,
      }),
      400,
      'invalid_grant',
    );
  });
  it('succeeds with the right verifier', async () => {
    const { verifier, challenge } = pkce();
    const response = await exchangeCodeJson(platform, {
      code: await freshCode({ codeChallenge: challenge }),
      state: 'st',
      code_verifier: verifier,
    });
    expect(response.status).toBe(200);
  });
});

describe('T10 grant types', () => {
  it.each(['password', 'client_credentials', 'implicit'])(
    'answers unsupported_grant_type for %s',
    async (grantType) => {
      const { client_id, client_secret } = platform.webClient;
      await expectOAuthError(
        await postForm(tokenUrl, { grant_type: grantType, client_id, client_secret }),
        400,
        'unsupported_grant_type',
      );
      const json = await fetch(`${tokenUrl}?grant_type=${grantType}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id, client_secret }),
      });
      await expectOAuthError(json, 400, 'unsupported_grant_type');
    },
  );
  it('answers invalid_request when query and body disagree', async () => {
    const { client_id, client_secret } = platform.webClient;
    const response = await fetch(`${tokenUrl}?grant_type=authorization_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id,
        client_secret,
        refresh_token: 'x',
      }).toString(),
    });
    await expectOAuthError(response, 400, 'invalid_request');
  });
});

describe('T11 malformed requests', () => {
  it('answers a GET with a JSON error', async () => {
    await expectOAuthError(await fetch(tokenUrl), 405, 'invalid_request');
  });
  it('answers malformed JSON with a JSON error', async () => {
    const response = await fetch(`${tokenUrl}?grant_type=authorization_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"client_id": ',
    });
    await expectOAuthError(response, 400, 'invalid_request');
  });
  it('answers a wrong content type with a JSON error', async () => {
    const response = await fetch(`${tokenUrl}?grant_type=authorization_code`, {
      method: 'POST',
      headers: { 'content-type': 'text/xml' },
      body: '<code>1</code>',
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
    expect(((await response.json()) as { error: string }).error).toBe('invalid_request');
  });
  it('answers a JSON body sent as a form with 400 invalid_request naming the content type', async () => {
    const code = await freshCode();
    for (const url of [`${tokenUrl}?grant_type=authorization_code`, `${platform.url}/v2/core/oauth/revoke`]) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        // A secret with `=` in it splits the JSON into several form fields: still recognized.
        body: JSON.stringify({ ...platform.webClient, client_secret: 'a=b', code, state: 'st', token: 'x' }),
      });
      const body = await expectOAuthError(response, 400, 'invalid_request');
      expect(body.error_description).toMatch(/Content-Type/);
      expect(body.error_description).toMatch(/application\/json/);
    }
    // The code was not touched: it still redeems in the right shape.
    expect((await exchangeCodeJson(platform, { code, state: 'st' })).status).toBe(200);
  });
  it('answers an oversized body with a JSON error', async () => {
    const response = await exchangeCodeJson(platform, { code: 'x'.repeat(100_000), state: 'st' });
    await expectOAuthError(response, 413, 'invalid_request');
  });
  it('answers a JSON array or repeated form fields with invalid_request', async () => {
    const array = await fetch(`${tokenUrl}?grant_type=authorization_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[1,2]',
    });
    await expectOAuthError(array, 400, 'invalid_request');
    const repeated = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=authorization_code&code=a&code=b',
    });
    await expectOAuthError(repeated, 400, 'invalid_request');
  });
});

async function tokens(scope = 'full', email = 'investor@demo.test'): Promise<TokenSet> {
  const response = await exchangeCodeJson(platform, { code: await freshCode({ scope, email }), state: 'st' });
  return (await response.json()) as TokenSet;
}

describe('refresh and rotation', () => {
  it('rotates the refresh token and issues a working access token', async () => {
    const first = await tokens();
    const response = await refreshJson(first.refresh_token);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    const second = (await response.json()) as TokenSet;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect((await me(second.access_token)).status).toBe(200);
  });
  it('accepts the form shape', async () => {
    const first = await tokens();
    const { client_id, client_secret } = platform.webClient;
    const response = await postForm(tokenUrl, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id,
      client_secret,
    });
    expect(response.status).toBe(200);
  });
});

describe('R1 a rotated refresh token used again', () => {
  it('fails and kills the newest token of the family too', async () => {
    const first = await tokens();
    const second = (await (await refreshJson(first.refresh_token)).json()) as TokenSet;
    await expectOAuthError(await refreshJson(first.refresh_token), 400, 'invalid_grant');
    await expectOAuthError(await refreshJson(second.refresh_token), 400, 'invalid_grant');
    expect((await me(second.access_token)).status).toBe(401);
  });
});

describe('R2 refresh refusals', () => {
  it("refuses another client's refresh token", async () => {
    const other = await addClient(platform);
    const first = await tokens();
    await expectOAuthError(await refreshJson(first.refresh_token, {}, other), 400, 'invalid_grant');
  });
  it('refuses a scope wider than granted, and allows a narrower one', async () => {
    const basic = await tokens('basic');
    await expectOAuthError(await refreshJson(basic.refresh_token, { scope: 'full' }), 400, 'invalid_scope');
    const full = await tokens('full');
    const narrowed = (await (await refreshJson(full.refresh_token, { scope: 'basic' })).json()) as TokenSet;
    expect(narrowed.scope).toBe('basic');
  });
  it('refuses past the absolute lifetime, however often it was rotated', async () => {
    let current = await tokens();
    for (let day = 0; day < 13; day++) {
      platform.advance(24 * 3600 * 1000);
      const response = await refreshJson(current.refresh_token);
      expect(response.status).toBe(200);
      current = (await response.json()) as TokenSet;
    }
    platform.advance(24 * 3600 * 1000 + 1000);
    await expectOAuthError(await refreshJson(current.refresh_token), 400, 'invalid_grant');
  });
});

describe('revocation', () => {
  const revoke = (token: string, client = platform.webClient) =>
    fetch(`${platform.url}/v2/core/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: client.client_id, client_secret: client.client_secret, token }),
    });

  it('revoking a refresh token ends it and its access tokens', async () => {
    const set = await tokens();
    expect((await me(set.access_token)).status).toBe(200);
    const response = await revoke(set.refresh_token);
    expect(response.status).toBe(200);
    expect((await me(set.access_token)).status).toBe(401);
    await expectOAuthError(await refreshJson(set.refresh_token), 400, 'invalid_grant');
  });
  it('revoking an access token ends only that token, at once even after it was just used', async () => {
    const set = await tokens();
    expect((await me(set.access_token)).status).toBe(200);
    expect((await revoke(set.access_token)).status).toBe(200);
    expect((await me(set.access_token)).status).toBe(401);
    expect((await refreshJson(set.refresh_token)).status).toBe(200);
  });
  it('answers 200 for an unknown token and for another client, with no effect', async () => {
    expect((await revoke('unknown-token')).status).toBe(200);
    const other = await addClient(platform);
    const set = await tokens();
    expect((await revoke(set.refresh_token, other)).status).toBe(200);
    expect((await me(set.access_token)).status).toBe(200);
  });
  it('requires client authentication', async () => {
    const set = await tokens();
    await expectOAuthError(
      await revoke(set.refresh_token, { client_id: platform.webClient.client_id, client_secret: 'x' }),
      401,
      'invalid_client',
    );
  });
});
