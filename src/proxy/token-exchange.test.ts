import { describe, expect, it } from 'vitest';
import { Secret } from './env';
import { filterError, PlatformClient } from './token-exchange';

interface Call {
  url: string;
  init: RequestInit;
}

/** A fetch that records its calls and answers with the given response. */
function stubFetch(answer: () => Response) {
  const calls: Call[] = [];
  const fetchStub = (async (input: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(input), init: init ?? {} });
    return answer();
  }) as typeof fetch;
  return { calls, fetchStub };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

function client(fetchStub: typeof fetch, platformBaseUrl = 'https://api.example.com/platform') {
  return new PlatformClient({
    platformBaseUrl,
    clientId: 'asset-manager',
    clientSecret: new Secret('s3cret'),
    timeoutMs: 1_000,
    fetch: fetchStub,
  });
}

describe('PlatformClient', () => {
  it('builds the spec URLs once, under a base path prefix', () => {
    const platform = client(stubFetch(() => json(200, {})).fetchStub);
    expect(platform.tokenUrls).toEqual({
      authorization_code:
        'https://api.example.com/platform/v2/core/oauth/token?grant_type=authorization_code',
      refresh_token: 'https://api.example.com/platform/v2/core/oauth/token?grant_type=refresh_token',
    });
    expect(platform.revokeUrl).toBe('https://api.example.com/platform/v2/core/oauth/revoke');
  });

  it('sends the spec JSON body with only content-type and accept headers, never following redirects', async () => {
    const { calls, fetchStub } = stubFetch(() =>
      json(200, {
        token_type: 'bearer',
        access_token: 'at',
        refresh_token: 'rt',
        expires_in: 3600,
        scope: 'full',
        id_token: 'x',
      }),
    );
    const result = await client(fetchStub).exchange({
      grantType: 'authorization_code',
      code: 'c',
      state: 's;+%=&',
      codeVerifier: 'v'.repeat(43),
    });
    expect(result).toEqual({
      ok: true,
      tokens: { access_token: 'at', token_type: 'bearer', expires_in: 3600, scope: 'full' },
      refreshToken: 'rt',
    });
    expect(calls).toHaveLength(1);
    const { url, init } = calls[0]!;
    expect(url).toBe('https://api.example.com/platform/v2/core/oauth/token?grant_type=authorization_code');
    expect(init.method).toBe('POST');
    expect(init.redirect).toBe('manual');
    expect(init.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json' });
    expect(init.signal).toBeInstanceOf(AbortSignal);
    expect(JSON.parse(String(init.body))).toEqual({
      client_id: 'asset-manager',
      client_secret: 's3cret',
      code: 'c',
      state: 's;+%=&',
      code_verifier: 'v'.repeat(43),
    });
  });

  it('keeps going without a new refresh token when the platform does not rotate', async () => {
    const { fetchStub } = stubFetch(() => json(200, { token_type: 'bearer', access_token: 'at' }));
    const result = await client(fetchStub).exchange({ grantType: 'refresh_token', refreshToken: 'rt' });
    expect(result).toEqual({ ok: true, tokens: { access_token: 'at', token_type: 'bearer' } });
  });

  it('refuses an oversized answer rather than buffering it', async () => {
    const { fetchStub } = stubFetch(() =>
      json(200, { token_type: 'bearer', access_token: 'at', padding: 'x'.repeat(100_000) }),
    );
    const result = await client(fetchStub).exchange({ grantType: 'refresh_token', refreshToken: 'rt' });
    expect(result).toMatchObject({ ok: false, status: 502, body: { error: 'server_error' } });
  });

  it('counts a revocation answered 200 or 404 as done, anything else as a failure', async () => {
    for (const [status, ok] of [
      [200, true],
      [404, true],
      [401, false],
      [500, false],
    ] as const) {
      const { calls, fetchStub } = stubFetch(() => new Response(null, { status }));
      const result = await client(fetchStub).revoke('rt');
      expect(result.ok, String(status)).toBe(ok);
      expect(JSON.parse(String(calls[0]!.init.body))).toEqual({
        client_id: 'asset-manager',
        client_secret: 's3cret',
        token: 'rt',
      });
    }
  });
});

describe('filterError (P7)', () => {
  it('keeps only a standard error and a well-formed description', () => {
    expect(
      filterError({ error: 'invalid_grant', error_description: 'Expired.', error_uri: 'x', debug: 1 }),
    ).toEqual({
      error: 'invalid_grant',
      error_description: 'Expired.',
    });
    expect(filterError({ error: 'invalid_client' })).toEqual({ error: 'invalid_client' });
  });

  it.each([
    [{ error: 'access_denied' }],
    [{ error: 'rate_limited' }],
    [{ error: 42 }],
    [{}],
    [null],
    [['invalid_grant']],
    ['invalid_grant'],
  ])('turns %j into server_error', (body) => {
    expect(filterError(body)).toEqual({ error: 'server_error' });
  });

  it('drops descriptions outside RFC 6749 characters or too long', () => {
    for (const description of ['has "quotes"', 'back\\slash', 'new\nline', 'é', '', 'x'.repeat(301), 7]) {
      expect(filterError({ error: 'invalid_request', error_description: description })).toEqual({
        error: 'invalid_request',
      });
    }
  });
});
