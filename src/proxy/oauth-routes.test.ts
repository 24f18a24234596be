import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakePlatform, type FakePlatform } from './testing/fake-platform';
import {
  appHeaders,
  postForm,
  refreshCookieOf,
  send,
  startProxy,
  webOrigin,
  type Answer,
  type RunningProxy,
} from './testing/proxy-server';

const redirectUri = `${webOrigin}/auth/callback`;

let platform: FakePlatform;
let proxy: RunningProxy;

beforeEach(async () => {
  platform = await startFakePlatform();
  proxy = await startProxy(platform);
});
afterEach(async () => {
  await proxy.close();
  await platform.close();
});

/** The form oidc-client-ts sends for a code, plus `state` from extraTokenParams. */
function codeForm(issued: { code: string; state: string; verifier: string }) {
  return {
    grant_type: 'authorization_code',
    code: issued.code,
    redirect_uri: redirectUri,
    code_verifier: issued.verifier,
    client_id: 'asset-manager',
    state: issued.state,
  };
}

async function signIn(port = proxy.port) {
  const answer = await postForm(port, '/oauth/token', codeForm(platform.issueCode()));
  expect(answer.status).toBe(200);
  const cookie = refreshCookieOf(answer);
  expect(cookie).toBeDefined();
  return { answer, refreshToken: cookie!.value };
}

const refreshWithCookie = (refreshToken: string, fields: Record<string, string> = {}) =>
  postForm(
    proxy.port,
    '/oauth/token',
    { grant_type: 'refresh_token', client_id: 'asset-manager', ...fields },
    { cookie: `am_refresh=${encodeURIComponent(refreshToken)}` },
  );

const isCleared = (answer: Answer) => {
  const cookie = refreshCookieOf(answer);
  return (
    cookie !== undefined &&
    cookie.value === '' &&
    cookie.attributes.some((a) => /^(Max-Age=0|Expires=)/i.test(a))
  );
};

const noUpstreamSetCookie = (answer: Answer) =>
  (answer.headers['set-cookie'] ?? []).every((c) => !c.includes('platform_session'));

describe('code exchange', () => {
  it('calls the platform in the spec shape and keeps the refresh token in the cookie only', async () => {
    const issued = platform.issueCode();
    const answer = await postForm(proxy.port, '/oauth/token', codeForm(issued), {
      cookie: 'other=1; am_refresh=stale-token',
      authorization: 'Bearer from-the-browser',
      'x-forwarded-for': '203.0.113.9',
    });

    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    const body = answer.json();
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'scope', 'token_type']);
    expect(body.access_token).toBe(platform.accessTokens[0]);
    expect(answer.text).not.toMatch(/refresh/);

    const cookie = refreshCookieOf(answer)!;
    expect(platform.refreshTokens.has(cookie.value)).toBe(true);
    expect(cookie.attributes).toEqual(
      expect.arrayContaining(['Max-Age=1209600', 'Path=/oauth', 'HttpOnly', 'Secure', 'SameSite=Strict']),
    );
    expect(noUpstreamSetCookie(answer)).toBe(true);
    expect(answer.headers['x-upstream-debug']).toBeUndefined();

    expect(platform.received).toHaveLength(1);
    const upstream = platform.received[0]!;
    expect(upstream.method).toBe('POST');
    expect(upstream.url).toBe('/v2/core/oauth/token?grant_type=authorization_code');
    expect(upstream.headers['content-type']).toBe('application/json');
    expect(JSON.parse(upstream.body)).toEqual({
      client_id: 'asset-manager',
      client_secret: platform.secret,
      code: issued.code,
      state: issued.state,
      code_verifier: issued.verifier,
    });
    // P7: nothing of the browser's request travels upstream but the copied fields.
    for (const header of [
      'cookie',
      'authorization',
      'origin',
      'x-requested-with',
      'x-forwarded-for',
      'referer',
    ]) {
      expect(upstream.headers[header]).toBeUndefined();
    }
  });

  it('passes back only the RFC 6749 error of a refused code, without a cookie (P7)', async () => {
    const issued = platform.issueCode();
    const answer = await postForm(proxy.port, '/oauth/token', {
      ...codeForm(issued),
      state: 'not-the-state',
    });
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ error: 'invalid_grant', error_description: 'The code is invalid.' });
    expect(refreshCookieOf(answer)).toBeUndefined();
    expect(noUpstreamSetCookie(answer)).toBe(true);
  });

  it('requires state and a PKCE verifier before calling the platform (P5)', async () => {
    const issued = platform.issueCode();
    const { state: _state, ...withoutState } = codeForm(issued);
    const { code_verifier: _verifier, ...withoutVerifier } = codeForm(issued);
    for (const form of [withoutState, withoutVerifier, { ...codeForm(issued), code_verifier: 'short' }]) {
      const answer = await postForm(proxy.port, '/oauth/token', form);
      expect(answer.status).toBe(400);
      expect(answer.json().error).toBe('invalid_request');
    }
    expect(platform.received).toHaveLength(0);
  });

  it('fails a stolen code redeemed with another verifier (P5)', async () => {
    const issued = platform.issueCode();
    const attacker = { ...issued, verifier: 'a'.repeat(43) };
    const answer = await postForm(proxy.port, '/oauth/token', codeForm(attacker));
    expect(answer.status).toBe(400);
    expect(answer.json().error).toBe('invalid_grant');
  });
});

describe('refresh', () => {
  it('refreshes from the cookie, rotates it, and ignores a refresh_token in the body', async () => {
    const { refreshToken } = await signIn();
    const answer = await refreshWithCookie(refreshToken, { refresh_token: 'from-the-body', scope: 'full' });

    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.json().access_token).toBe(platform.accessTokens[1]);
    expect(answer.text).not.toMatch(/refresh/);
    const rotated = refreshCookieOf(answer)!;
    expect(rotated.value).not.toBe(refreshToken);
    expect(platform.refreshTokens.get(rotated.value)).toBe(true);
    expect(rotated.attributes).toEqual(
      expect.arrayContaining(['Path=/oauth', 'HttpOnly', 'Secure', 'SameSite=Strict']),
    );

    const upstream = platform.received[1]!;
    expect(upstream.url).toBe('/v2/core/oauth/token?grant_type=refresh_token');
    expect(JSON.parse(upstream.body)).toEqual({
      client_id: 'asset-manager',
      client_secret: platform.secret,
      refresh_token: refreshToken,
    });
  });

  it('serves a page reload: grant_type=refresh_token with no token field, the cookie decides', async () => {
    const { refreshToken } = await signIn();
    const answer = await refreshWithCookie(refreshToken);
    expect(answer.status).toBe(200);
    expect(typeof answer.json().access_token).toBe('string');
    expect(refreshCookieOf(answer)?.value).toMatch(/^refresh-token-/);
  });

  it('answers invalid_grant without a cookie, and never asks the platform', async () => {
    const answer = await postForm(proxy.port, '/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: 'a-token-in-the-body',
    });
    expect(answer.status).toBe(400);
    expect(answer.json().error).toBe('invalid_grant');
    expect(platform.received).toHaveLength(0);
  });

  it('clears the cookie when the platform refuses the refresh token', async () => {
    const { refreshToken } = await signIn();
    expect((await refreshWithCookie(refreshToken)).status).toBe(200);
    const reused = await refreshWithCookie(refreshToken);
    expect(reused.status).toBe(400);
    expect(reused.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'The refresh token is invalid.',
    });
    expect(isCleared(reused)).toBe(true);
    const cleared = refreshCookieOf(reused)!;
    expect(cleared.attributes).toEqual(expect.arrayContaining(['Path=/oauth', 'HttpOnly', 'Secure']));
  });

  it('learns that a platform refuses the refresh grant, says so in the app config, and stops asking', async () => {
    const { refreshToken } = await signIn();
    platform.override((request, response) => {
      if (!request.url.includes('grant_type=refresh_token')) return false;
      response.writeHead(400, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error: 'unsupported_grant_type' }));
      return true;
    });
    const refused = await refreshWithCookie(refreshToken);
    expect(refused.status).toBe(400);
    expect(isCleared(refused)).toBe(true);
    const asked = platform.received.length;

    const config = await send(proxy.port, { path: '/app-config.json' });
    expect((config.json().capabilities as { refreshGrant: unknown }).refreshGrant).toBe(false);
    const again = await refreshWithCookie('another-refresh-token');
    expect(again.status).toBe(400);
    expect(again.json().error).toBe('invalid_grant');
    expect(platform.received).toHaveLength(asked);
  });

  it('makes one platform call for concurrent refreshes with the same cookie (two tabs reloading)', async () => {
    const { refreshToken } = await signIn();
    // The platform holds its answer to the first refresh until the second tab's request has reached
    // the proxy, however slowly either travels: until the proxy says the second joined the first, or
    // (were it not to) the second reaches the platform too.
    const joined = () => proxy.logs.some((line) => line.includes('refresh joins the one in flight'));
    const refreshesReceived = () => platform.received.filter((r) => r.url.includes('refresh_token')).length;
    platform.override(async (request) => {
      if (!request.url.includes('refresh_token')) return false;
      const deadline = Date.now() + 30_000;
      while (!joined() && refreshesReceived() < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return false;
    });
    const [first, second] = await Promise.all([
      refreshWithCookie(refreshToken),
      refreshWithCookie(refreshToken),
    ]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(refreshCookieOf(first)?.value).toBe(refreshCookieOf(second)?.value);
    expect(refreshesReceived()).toBe(1);
    expect(joined()).toBe(true);
  });
});

describe("the first page's reads along with a renewal (W4)", () => {
  const me = { user: { id: 1, name: 'Ivy' }, entities: [] };
  const product = { product: { id: 7, name: 'Solar' }, assets: [] };
  /** The platform's API as the reads meet it; a stalled path never answers. */
  function platformApi(stalled = '') {
    platform.override((request, response) => {
      const path = request.url.split('?')[0];
      if (request.method !== 'GET') return false;
      if (path === stalled) return true;
      const body = path === '/v2/core/me' ? me : path === '/v2/core/products/7' ? product : null;
      response.writeHead(body ? 200 : 404, {
        'content-type': body ? 'application/json; charset=utf-8' : 'application/problem+json',
        'set-cookie': 'platform_session=must-not-leak; Path=/',
      });
      response.end(JSON.stringify(body ?? { title: 'Not Found', status: 404 }));
      return true;
    });
  }
  const gets = () => platform.received.filter((r) => r.method === 'GET');

  it('reads the account and the entity with the new token, and answers them with it: one round trip', async () => {
    const { refreshToken } = await signIn();
    platformApi();
    const answer = await refreshWithCookie(refreshToken, { read: '/v2/core/me /v2/core/products/7' });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    const body = answer.json();
    expect(body.access_token).toBe(platform.accessTokens[1]);
    expect(body.reads).toEqual([
      {
        path: '/v2/core/me',
        status: 200,
        content_type: 'application/json; charset=utf-8',
        body: JSON.stringify(me),
      },
      {
        path: '/v2/core/products/7',
        status: 200,
        content_type: 'application/json; charset=utf-8',
        body: JSON.stringify(product),
      },
    ]);
    // With the token the browser was just given, and nothing else of the browser's request (P7).
    expect(gets().map((r) => [r.url, r.headers.authorization, r.headers.cookie])).toEqual([
      ['/v2/core/me', `Bearer ${platform.accessTokens[1]}`, undefined],
      ['/v2/core/products/7', `Bearer ${platform.accessTokens[1]}`, undefined],
    ]);
    expect(answer.text).not.toContain('must-not-leak');
    expect(noUpstreamSetCookie(answer)).toBe(true);
  });

  it("passes the platform's refusal on as it came: the app reads it as its own call's answer", async () => {
    const { refreshToken } = await signIn();
    platformApi();
    const answer = await refreshWithCookie(refreshToken, { read: '/v2/core/products/8' });
    expect(answer.json().reads).toEqual([
      {
        path: '/v2/core/products/8',
        status: 404,
        content_type: 'application/problem+json',
        body: JSON.stringify({ title: 'Not Found', status: 404 }),
      },
    ]);
  });

  it('reads only the account and the configured entity reads by number: nothing else is asked of the platform', async () => {
    const { refreshToken } = await signIn();
    platformApi();
    const asked = [
      '/v2/core/assets/1',
      '/v2/core/products/abc',
      '/v2/core/products/07',
      '/v2/core/products/7/../../assets/1',
      '/v2/core/oauth/token',
      'http://evil.test/v2/core/me',
      '/v2/core/me?x=1',
      '/v2/core/products/7',
    ].join(' ');
    const answer = await refreshWithCookie(refreshToken, { read: asked });
    expect(answer.status).toBe(200);
    expect((answer.json().reads as { path: string }[]).map((r) => r.path)).toEqual(['/v2/core/products/7']);
    expect(gets().map((r) => r.url)).toEqual(['/v2/core/products/7']);
  });

  it('reads nothing for a code exchange or a refused renewal', async () => {
    platformApi();
    const issued = platform.issueCode();
    const signedIn = await postForm(proxy.port, '/oauth/token', { ...codeForm(issued), read: '/v2/core/me' });
    expect(signedIn.status).toBe(200);
    expect(signedIn.json().reads).toBeUndefined();
    const refused = await refreshWithCookie('not-a-refresh-token', { read: '/v2/core/me' });
    expect(refused.status).toBe(400);
    expect(refused.json().reads).toBeUndefined();
    expect(gets()).toEqual([]);
  });

  it('leaves out a read the platform is slow to answer: the renewal is not held back for it', async () => {
    const { refreshToken } = await signIn();
    platformApi('/v2/core/products/7');
    const answer = await refreshWithCookie(refreshToken, { read: '/v2/core/me /v2/core/products/7' });
    expect(answer.status).toBe(200);
    expect((answer.json().reads as { path: string }[]).map((r) => r.path)).toEqual(['/v2/core/me']);
    expect(typeof answer.json().access_token).toBe('string');
  });
});

describe('P2: the upstream address is fixed by configuration', () => {
  it('ignores the Host header, an absolute request target, forwarding headers and the query', async () => {
    const issued = platform.issueCode();
    const answer = await send(proxy.port, {
      method: 'POST',
      path: 'http://evil.test:4000/oauth/token?grant_type=password&base_url=http://evil.test',
      headers: {
        ...appHeaders,
        host: 'evil.test:4000',
        'x-forwarded-host': 'evil.test',
        'x-forwarded-proto': 'https',
        forwarded: 'host=evil.test',
      },
      body: new URLSearchParams(codeForm(issued)).toString(),
    });
    // Whatever the proxy makes of such a request, it went nowhere but the configured platform.
    expect([200, 400, 404]).toContain(answer.status);
    for (const upstream of platform.received) {
      expect(upstream.url).toBe('/v2/core/oauth/token?grant_type=authorization_code');
      expect(upstream.headers.host).toBe(new URL(platform.baseUrl).host);
    }
  });

  it('sends the token request to the configured URL even when the request names another host', async () => {
    const issued = platform.issueCode();
    const answer = await postForm(proxy.port, '/oauth/token?redirect=http://evil.test', codeForm(issued), {
      host: 'evil.test',
    });
    expect(answer.status).toBe(200);
    expect(platform.received).toHaveLength(1);
    expect(platform.received[0]!.url).toBe('/v2/core/oauth/token?grant_type=authorization_code');
  });

  it('never follows a redirect from the platform (it would carry the secret elsewhere)', async () => {
    let redirectTargetHit = false;
    const elsewhere = await startFakePlatform();
    elsewhere.override(() => {
      redirectTargetHit = true;
      return false;
    });
    platform.override((_request, response) => {
      response.writeHead(307, {
        location: `${elsewhere.baseUrl}/v2/core/oauth/token?grant_type=authorization_code`,
      });
      response.end();
      return true;
    });
    try {
      const answer = await postForm(proxy.port, '/oauth/token', codeForm(platform.issueCode()));
      expect(answer.status).toBe(502);
      expect(answer.json()).toEqual({ error: 'server_error' });
      expect(redirectTargetHit).toBe(false);
    } finally {
      await elsewhere.close();
    }
  });
});

describe('P3: grant types and client', () => {
  it.each(['password', 'client_credentials', 'implicit', 'urn:ietf:params:oauth:grant-type:device_code'])(
    'refuses grant_type=%s with unsupported_grant_type',
    async (grantType) => {
      const answer = await postForm(proxy.port, '/oauth/token', {
        grant_type: grantType,
        client_id: 'asset-manager',
      });
      expect(answer.status).toBe(400);
      expect(answer.json().error).toBe('unsupported_grant_type');
      expect(answer.headers['cache-control']).toBe('no-store');
    },
  );

  it('refuses a foreign client_id, a client_secret, another redirect_uri, repeated or missing fields', async () => {
    const issued = platform.issueCode();
    const cases: [Record<string, string> | string, string][] = [
      [{ ...codeForm(issued), client_id: 'another-client' }, 'invalid_client'],
      [{ ...codeForm(issued), client_secret: 'guess' }, 'invalid_request'],
      [{ ...codeForm(issued), redirect_uri: 'https://evil.test/auth/callback' }, 'invalid_grant'],
      [`${new URLSearchParams(codeForm(issued))}&code=second`, 'invalid_request'],
      [{ code: issued.code }, 'invalid_request'],
    ];
    for (const [form, error] of cases) {
      const body = typeof form === 'string' ? form : new URLSearchParams(form).toString();
      const answer = await send(proxy.port, {
        method: 'POST',
        path: '/oauth/token',
        headers: appHeaders,
        body,
      });
      expect(answer.status, body).toBe(400);
      expect(answer.json().error, body).toBe(error);
    }
    expect(platform.received).toHaveLength(0);
  });

  it('reads only form bodies, caps their size, and answers other methods in RFC 6749 JSON', async () => {
    const json = await send(proxy.port, {
      method: 'POST',
      path: '/oauth/token',
      headers: { ...appHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'authorization_code' }),
    });
    expect(json.status).toBe(415);
    expect(json.json().error).toBe('invalid_request');

    const big = await postForm(proxy.port, '/oauth/token', {
      grant_type: 'authorization_code',
      code: 'x'.repeat(17_000),
    });
    expect(big.status).toBe(413);
    expect(big.json().error).toBe('invalid_request');

    const get = await send(proxy.port, { path: '/oauth/token', headers: { accept: 'text/html' } });
    expect(get.status).toBe(405);
    expect(get.json().error).toBe('invalid_request');
    expect(platform.received).toHaveLength(0);
  });
});

describe('P4: only the web app may ask', () => {
  const cases: [string, Record<string, string | undefined>][] = [
    ['a foreign Origin', { origin: 'https://evil.test' }],
    ['the right host on another port', { origin: 'http://127.0.0.1:5174' }],
    ['Origin: null', { origin: 'null' }],
    ['no Origin', { origin: undefined }],
    ['no custom header', { 'x-requested-with': undefined }],
    ['another custom header value', { 'x-requested-with': 'XMLHttpRequest' }],
    ['a cross-site fetch', { 'sec-fetch-site': 'cross-site' }],
  ];
  it.each(cases)('refuses a token request with %s (403)', async (_name, change) => {
    const headers: Record<string, string> = { ...appHeaders };
    for (const [name, value] of Object.entries(change)) {
      if (value === undefined) delete headers[name];
      else headers[name] = value;
    }
    const token = await send(proxy.port, {
      method: 'POST',
      path: '/oauth/token',
      headers,
      body: new URLSearchParams(codeForm(platform.issueCode())).toString(),
    });
    expect(token.status).toBe(403);
    expect(token.json().error).toBe('invalid_request');
    expect(token.headers['access-control-allow-origin']).toBeUndefined();

    const revoke = await send(proxy.port, {
      method: 'POST',
      path: '/oauth/revoke',
      headers: { ...headers, cookie: 'am_refresh=some-token' },
      body: '',
    });
    expect(revoke.status).toBe(403);
    expect(refreshCookieOf(revoke)).toBeUndefined();
    expect(platform.received).toHaveLength(0);
  });

  it('accepts a same-origin fetch that says so', async () => {
    const answer = await postForm(proxy.port, '/oauth/token', codeForm(platform.issueCode()), {
      'sec-fetch-site': 'same-origin',
    });
    expect(answer.status).toBe(200);
  });
});

describe('P7: what comes back from the platform', () => {
  it('filters an error answer down to error and error_description', async () => {
    platform.override((_request, response) => {
      response.writeHead(400, {
        'content-type': 'application/json',
        'set-cookie': 'platform_session=must-not-leak',
        'x-upstream-debug': 'must-not-leak',
        'www-authenticate': 'Basic realm="platform"',
      });
      response.end(
        JSON.stringify({
          error: 'invalid_grant',
          error_description: 'The code has expired.',
          error_uri: 'https://evil.test/help',
          stack: 'Error: at token.js:12',
          refresh_token: 'leaked-refresh',
        }),
      );
      return true;
    });
    const answer = await postForm(proxy.port, '/oauth/token', codeForm(platform.issueCode()));
    expect(answer.status).toBe(400);
    expect(answer.json()).toEqual({ error: 'invalid_grant', error_description: 'The code has expired.' });
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['x-upstream-debug']).toBeUndefined();
    expect(answer.headers['www-authenticate']).toBeUndefined();
    expect(answer.headers['content-type']).toMatch(/^application\/json/);
  });

  it('turns unknown error codes into server_error and drops descriptions with odd characters', async () => {
    platform.override((_request, response) => {
      response.writeHead(401, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({ error: '<script>x</script>', error_description: 'quote " and \n newline' }),
      );
      return true;
    });
    const answer = await postForm(proxy.port, '/oauth/token', codeForm(platform.issueCode()));
    expect(answer.status).toBe(401);
    expect(answer.json()).toEqual({ error: 'server_error' });
  });

  it.each([
    ['a 500', 500, 'application/json', '{"error":"server_error","trace":"at db.js"}'],
    ['an HTML error page', 400, 'text/html', '<html><body>Bad Gateway</body></html>'],
    ['a success that is not JSON', 200, 'text/plain', 'access_token=abc'],
    ['a success without an access token', 200, 'application/json', '{"token_type":"bearer"}'],
    ['a 404', 404, 'application/json', '{"error":"not_found"}'],
  ])('answers 502 server_error for %s', async (_name, status, type, body) => {
    platform.override((_request, response) => {
      response.writeHead(status, { 'content-type': type, 'set-cookie': 'platform_session=must-not-leak' });
      response.end(body);
      return true;
    });
    const answer = await postForm(proxy.port, '/oauth/token', codeForm(platform.issueCode()));
    expect(answer.status).toBe(502);
    expect(answer.json()).toEqual({ error: 'server_error' });
    expect(answer.headers['set-cookie']).toBeUndefined();
  });

  it("passes the platform's own rate limit on as 503 temporarily_unavailable with Retry-After", async () => {
    platform.override((_request, response) => {
      response.writeHead(429, { 'retry-after': '17', 'content-type': 'application/json' });
      response.end('{"error":"rate_limited"}');
      return true;
    });
    const answer = await postForm(proxy.port, '/oauth/token', codeForm(platform.issueCode()));
    expect(answer.status).toBe(503);
    expect(answer.json()).toEqual({ error: 'temporarily_unavailable' });
    expect(answer.headers['retry-after']).toBe('17');
  });
});

describe('P8: bursts', () => {
  it('answers 429 once an address has used up TOKEN_RATE_LIMIT a minute', async () => {
    const limited = await startProxy(platform, { TOKEN_RATE_LIMIT: '3' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const answer = await postForm(limited.port, '/oauth/token', { grant_type: 'refresh_token' });
        statuses.push(answer.status);
        if (answer.status === 429) {
          expect(answer.json().error).toBe('temporarily_unavailable');
          expect(answer.headers['retry-after']).toBeDefined();
        }
      }
      expect(statuses).toEqual([400, 400, 400, 429, 429]);
      // Sign-out shares the budget: a burst cannot be spread across the two endpoints.
      const revoke = await postForm(limited.port, '/oauth/revoke', {});
      expect(revoke.status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

describe('sign-out', () => {
  it("revokes the cookie's refresh token at the platform and clears the cookie", async () => {
    const { refreshToken } = await signIn();
    const answer = await postForm(
      proxy.port,
      '/oauth/revoke',
      { token: 'the-access-token', token_type_hint: 'access_token' },
      { cookie: `am_refresh=${encodeURIComponent(refreshToken)}` },
    );
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ platform: 'signed_out' });
    expect(isCleared(answer)).toBe(true);
    expect(noUpstreamSetCookie(answer)).toBe(true);

    const upstream = platform.received.at(-1)!;
    expect(upstream.url).toBe('/v2/core/oauth/revoke');
    expect(JSON.parse(upstream.body)).toEqual({
      client_id: 'asset-manager',
      client_secret: platform.secret,
      token: refreshToken,
    });
    expect(upstream.headers.cookie).toBeUndefined();
    expect(platform.revoked).toEqual([refreshToken]);
    expect((await refreshWithCookie(refreshToken)).status).toBe(400);
  });

  it('works without a body or a cookie, and asks the platform nothing then', async () => {
    const answer = await send(proxy.port, {
      method: 'POST',
      path: '/oauth/revoke',
      headers: { origin: webOrigin, 'x-requested-with': 'asset-manager' },
    });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ platform: 'signed_out' });
    expect(isCleared(answer)).toBe(true);
    expect(platform.received).toHaveLength(0);
  });

  it('C5: a platform without the revocation endpoint (404) still signs the app out, and is not asked again', async () => {
    platform.override((request, response) => {
      if (!request.url.startsWith('/v2/core/oauth/revoke')) return false;
      response.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not Found</h1>');
      return true;
    });
    const answer = await postForm(proxy.port, '/oauth/revoke', {}, { cookie: 'am_refresh=some-token' });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ platform: 'not_offered' });
    expect(isCleared(answer)).toBe(true);
    const asked = platform.received.length;

    const again = await postForm(proxy.port, '/oauth/revoke', {}, { cookie: 'am_refresh=other-token' });
    expect(again.json()).toEqual({ platform: 'not_offered' });
    expect(platform.received).toHaveLength(asked);
    const config = await send(proxy.port, { path: '/app-config.json' });
    expect((config.json().capabilities as { revoke: unknown }).revoke).toBe(false);
  });

  it('C5: still signs the app out when the platform cannot be reached, and says so', async () => {
    const down = await startProxy({ baseUrl: 'http://127.0.0.1:9', secret: platform.secret });
    try {
      const answer = await postForm(down.port, '/oauth/revoke', {}, { cookie: 'am_refresh=some-token' });
      expect(answer.status).toBe(200);
      expect(answer.json()).toEqual({ platform: 'unreachable' });
      expect(isCleared(answer)).toBe(true);
    } finally {
      await down.close();
    }
  });
});

describe('the session hint for the page the proxy paints', () => {
  const hintOf = (answer: Answer) => {
    const line = (answer.headers['set-cookie'] ?? []).find((c) => c.startsWith('am_session='));
    if (!line) return undefined;
    const [pair, ...attributes] = line.split(';').map((part) => part.trim());
    return { value: pair!.slice('am_session='.length), attributes };
  };

  it('comes with the session, carrying nothing but "1", and goes with it', async () => {
    const { answer, refreshToken } = await signIn();
    const hint = hintOf(answer)!;
    expect(hint.value).toBe('1');
    expect(hint.attributes).toEqual(
      expect.arrayContaining(['Max-Age=1209600', 'Path=/', 'HttpOnly', 'Secure', 'SameSite=Lax']),
    );

    const refreshed = await refreshWithCookie(refreshToken);
    expect(hintOf(refreshed)?.value).toBe('1');
    // A refused refresh token ends the session, and the hint with it.
    const reused = await refreshWithCookie(refreshToken);
    expect(reused.status).toBe(400);
    expect(hintOf(reused)).toMatchObject({ value: '' });
    expect(hintOf(reused)!.attributes).toEqual(expect.arrayContaining(['Path=/']));

    const signedOut = await postForm(
      proxy.port,
      '/oauth/revoke',
      {},
      { cookie: 'am_refresh=x; am_session=1' },
    );
    expect(hintOf(signedOut)).toMatchObject({ value: '' });
    expect(hintOf(signedOut)!.attributes.some((a) => /^(Max-Age=0|Expires=)/i.test(a))).toBe(true);
  });
});

describe('platform down or slow', () => {
  it('answers 502 JSON when the platform cannot be reached, and keeps the cookie', async () => {
    const down = await startProxy({ baseUrl: 'http://127.0.0.1:9', secret: platform.secret });
    try {
      const code = await postForm(down.port, '/oauth/token', codeForm(platform.issueCode()));
      expect(code.status).toBe(502);
      expect(code.json()).toEqual({ error: 'temporarily_unavailable' });

      const refresh = await postForm(
        down.port,
        '/oauth/token',
        { grant_type: 'refresh_token' },
        {
          cookie: 'am_refresh=still-good',
        },
      );
      expect(refresh.status).toBe(502);
      // The token may still be good once the platform is back: the session is not thrown away.
      expect(refreshCookieOf(refresh)).toBeUndefined();
    } finally {
      await down.close();
    }
  });

  it('times out a platform that does not answer: 504 temporarily_unavailable', async () => {
    const slow = await startProxy(platform, { PLATFORM_TIMEOUT_MS: '200' });
    platform.override(async (_request, response) => {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      if (!response.destroyed) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      return true;
    });
    try {
      const answer = await postForm(slow.port, '/oauth/token', codeForm(platform.issueCode()));
      expect(answer.status).toBe(504);
      expect(answer.json()).toEqual({ error: 'temporarily_unavailable' });
    } finally {
      await slow.close();
    }
  });

  it('times out a platform that stalls halfway through its answer', async () => {
    const slow = await startProxy(platform, { PLATFORM_TIMEOUT_MS: '200' });
    platform.override((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"access_token":');
      return true;
    });
    try {
      const answer = await postForm(slow.port, '/oauth/token', codeForm(platform.issueCode()));
      expect(answer.status).toBe(504);
      expect(answer.json()).toEqual({ error: 'temporarily_unavailable' });
    } finally {
      await slow.close();
    }
  });
});

describe('P1: the secret and the tokens stay out of logs and answers', () => {
  it('logs a whole session (sign-in, callback page, refresh, sign-out) without secret, code or tokens', async () => {
    const issued = platform.issueCode();
    await send(proxy.port, {
      path: `/auth/callback?code=${issued.code}&state=${issued.state}`,
      headers: { accept: 'text/html' },
    });
    const { answer, refreshToken } = await signIn();
    const refreshed = await refreshWithCookie(refreshToken);
    const rotated = refreshCookieOf(refreshed)!.value;
    await refreshWithCookie(refreshToken); // a refused reuse logs too
    await postForm(proxy.port, '/oauth/revoke', {}, { cookie: `am_refresh=${rotated}` });
    await postForm(proxy.port, '/oauth/token', { grant_type: 'nope' }, { origin: 'https://evil.test' });

    const log = proxy.logs.join('');
    expect(proxy.logs.length).toBeGreaterThan(5);
    const secrets = [
      platform.secret,
      issued.code,
      issued.state,
      refreshToken,
      rotated,
      String(answer.json().access_token),
      ...platform.accessTokens,
      ...platform.refreshTokens.keys(),
    ];
    for (const value of secrets) expect(log).not.toContain(value);
    expect(log).not.toMatch(/am_refresh=|client_secret|code_verifier/);
  });

  it('serves /app-config.json with the public settings only', async () => {
    const answer = await send(proxy.port, { path: '/app-config.json' });
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('no-store');
    expect(answer.json()).toEqual({
      platformBaseUrl: platform.baseUrl,
      platformAuthUrl: platform.baseUrl,
      // The probe found the platform's CORS admits the app: its calls go there directly.
      apiBaseUrl: platform.baseUrl,
      clientId: 'asset-manager',
      scope: 'full',
      redirectUri,
      tokenEndpoint: '/oauth/token',
      revokeEndpoint: '/oauth/revoke',
      entityPaths: {
        User: '/v2/core/users/:id',
        Product: '/v2/core/products/:id',
        Investment: '/v2/core/investments/:id',
        Accreditation: '/v2/core/accreditations/:id',
        IndicationOfInterest: '/v2/core/indications_of_interest/:id',
        TeamMember: '/v2/core/team_members/:id',
      },
      capabilities: {
        me: null,
        entityReads: null,
        renditions: null,
        review: null,
        reviewHistory: null,
        offerings: null,
        // The probe stub says nothing of tus: unknown, until a probe finds it.
        resumableUploads: null,
        refreshGrant: true,
        revoke: true,
        idempotencyKey: true,
        ifMatch: true,
      },
    });
    expect(answer.text).not.toContain(platform.secret);
  });
});
