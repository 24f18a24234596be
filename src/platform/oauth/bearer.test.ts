import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { problemSchema } from '../../shared/api/problem';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';

let platform: TestPlatform;
let meUrl: string;
beforeAll(async () => {
  platform = await startPlatform({ ACCESS_TOKEN_TTL: '600' });
  meUrl = `${platform.url}/v2/core/me`;
});
afterAll(() => platform.close());

async function expectProblem(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  const problem = problemSchema.parse(await response.json());
  expect(problem.code).toBe(code);
  expect(problem.status).toBe(status);
  return problem;
}

describe('B1 tokens that must not work', () => {
  it('refuses a token in the query even when it is valid', async () => {
    const { access_token } = await tokensFor(platform);
    const response = await fetch(`${meUrl}?access_token=${access_token}`);
    await expectProblem(response, 401, 'invalid_token');
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="invalid_token"/);
  });
  it('refuses a missing, malformed or unknown token', async () => {
    await expectProblem(await fetch(meUrl), 401, 'invalid_token');
    await expectProblem(
      await fetch(meUrl, { headers: { authorization: 'Token abc' } }),
      401,
      'invalid_token',
    );
    await expectProblem(await fetch(meUrl, { headers: bearer('not-a-real-token') }), 401, 'invalid_token');
  });
  it('refuses an expired token', async () => {
    const { access_token } = await tokensFor(platform);
    expect((await fetch(meUrl, { headers: bearer(access_token) })).status).toBe(200);
    platform.advance(601_000);
    await expectProblem(await fetch(meUrl, { headers: bearer(access_token) }), 401, 'invalid_token');
  });
  it('refuses a revoked token', async () => {
    const { access_token } = await tokensFor(platform);
    await fetch(`${platform.url}/v2/core/oauth/revoke`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ...platform.webClient, token: access_token }),
    });
    await expectProblem(await fetch(meUrl, { headers: bearer(access_token) }), 401, 'invalid_token');
  });
});

describe('B2 a basic token that writes', () => {
  it.each(['POST', 'PUT', 'DELETE'])('answers %s with 403 insufficient_scope', async (method) => {
    const { access_token, scope } = await tokensFor(platform, 'issuer@demo.test', 'basic');
    expect(scope).toBe('basic');
    const response = await fetch(`${platform.url}/v2/core/assets/1`, {
      method,
      headers: { ...bearer(access_token), 'content-type': 'application/json' },
      body: method === 'DELETE' ? undefined : '{}',
    });
    await expectProblem(response, 403, 'insufficient_scope');
    expect(response.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
  });
  it('still reads with a basic token', async () => {
    const { access_token } = await tokensFor(platform, 'issuer@demo.test', 'basic');
    expect((await fetch(meUrl, { headers: bearer(access_token) })).status).toBe(200);
  });
});

describe('GET /v2/core/me', () => {
  it('answers each demo user with their role and the entities they own', async () => {
    const investor = meSchema.parse(
      await (await fetch(meUrl, { headers: bearer((await tokensFor(platform)).access_token) })).json(),
    );
    expect(investor.user).toMatchObject({ email: 'investor@demo.test', role: 'investor' });
    expect(investor.entities.map((e) => e.type).sort()).toEqual([
      'Accreditation',
      'IndicationOfInterest',
      'User',
    ]);
    // Only an accreditation has a review status; the demo one waits for its investor's documents.
    expect(investor.entities.map((e) => [e.type, e.status]).sort()).toEqual([
      ['Accreditation', 'documents_needed'],
      ['IndicationOfInterest', undefined],
      ['User', undefined],
    ]);

    const issuerToken = (await tokensFor(platform, 'issuer@demo.test')).access_token;
    const issuer = meSchema.parse(await (await fetch(meUrl, { headers: bearer(issuerToken) })).json());
    expect(issuer.user.role).toBe('issuer');
    const count = (type: string) => issuer.entities.filter((e) => e.type === type).length;
    expect([count('Product'), count('Investment'), count('TeamMember'), count('User')]).toEqual([2, 2, 2, 1]);
    expect(issuer.entities.find((e) => e.type === 'Product')?.name).toBeTruthy();

    const adminToken = (await tokensFor(platform, 'admin@demo.test')).access_token;
    const admin = meSchema.parse(await (await fetch(meUrl, { headers: bearer(adminToken) })).json());
    expect(admin.user.role).toBe('admin');
  });
});

describe('platform basics', () => {
  it('answers /healthz', async () => {
    expect(await (await fetch(`${platform.url}/healthz`)).json()).toEqual({ status: 'ok' });
  });
  it('answers unknown API paths with 404 problem JSON', async () => {
    const { access_token } = await tokensFor(platform);
    await expectProblem(
      await fetch(`${platform.url}/v2/core/nothing-here`, { headers: bearer(access_token) }),
      404,
      'not_found',
    );
  });
  it('serves the OpenAPI document generated from the routes', async () => {
    const doc = (await (await fetch(`${platform.url}/v2/core/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, unknown>;
    };
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/v2/core/oauth/token', '/v2/core/oauth/revoke', '/v2/core/me']),
    );
  });
  it('allows the web app origin by CORS on the API, and no origin on the token endpoint', async () => {
    const origin = 'http://127.0.0.1:5173';
    const preflight = await fetch(meUrl, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'authorization',
      },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('authorization');
    const foreign = await fetch(meUrl, {
      method: 'OPTIONS',
      headers: { origin: 'http://evil.test', 'access-control-request-method': 'GET' },
    });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
    const token = await fetch(`${platform.url}/v2/core/oauth/token`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(token.headers.get('access-control-allow-origin')).toBeNull();
  });
  it("gives the web app's requests CORS headers, and callers without an Origin none", async () => {
    const { access_token } = await tokensFor(platform);
    const origin = 'http://127.0.0.1:5173';
    const fromApp = await fetch(meUrl, { headers: { ...bearer(access_token), origin } });
    expect(fromApp.headers.get('access-control-allow-origin')).toBe(origin);
    expect(fromApp.headers.get('access-control-expose-headers')).toMatch(/\bETag\b.*\bRetry-After\b/);
    expect(fromApp.headers.get('vary')).toMatch(/\bOrigin\b/);
    for (const headers of [bearer(access_token), { ...bearer(access_token), origin: 'http://evil.test' }]) {
      const other = await fetch(meUrl, { headers });
      expect(other.status).toBe(200);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      expect(other.headers.get('access-control-expose-headers')).toBeNull();
      // Caches keep the answer per Origin all the same.
      expect(other.headers.get('vary')).toMatch(/\bOrigin\b/);
    }
  });
  it("sends API answers the security headers OWASP asks of an API, and pages all of helmet's", async () => {
    const { access_token } = await tokensFor(platform);
    const documentOnly = [
      'referrer-policy',
      'cross-origin-opener-policy',
      'cross-origin-resource-policy',
      'origin-agent-cluster',
      'x-dns-prefetch-control',
      'x-download-options',
      'x-permitted-cross-domain-policies',
      'x-xss-protection',
    ];
    for (const answer of [await fetch(meUrl, { headers: bearer(access_token) }), await fetch(meUrl)]) {
      expect(answer.headers.get('content-security-policy')).toMatch(
        /default-src 'none'.*frame-ancestors 'none'/,
      );
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('x-frame-options')).toBe('DENY');
      for (const name of documentOnly) expect(answer.headers.get(name), name).toBeNull();
    }
    // The sign-in page is a document: it keeps them all.
    const page = await fetch(`${platform.url}/auth/login`, { redirect: 'manual' });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    for (const name of documentOnly) expect(page.headers.get(name), name).not.toBeNull();
  });
  it('never answers with a stack trace', async () => {
    const response = await fetch(`${platform.url}/v2/core/me`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{',
    });
    const text = await response.text();
    expect(response.status).toBeLessThan(500);
    expect(text).not.toMatch(/\.ts:\d+|node_modules/);
  });
});
