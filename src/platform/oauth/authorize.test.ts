import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browser, formField, hiddenFields } from '../testing/http-client';
import {
  addClient,
  authorizeThroughPages,
  authorizeUrl,
  demoPassword,
  startPlatform,
  type TestPlatform,
  webRedirectUri,
} from '../testing/platform-server';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

const good = { client_id: 'asset-manager', redirect_uri: webRedirectUri, state: 'xyz', scope: 'full' };

async function expectErrorPage(params: Record<string, string>) {
  const response = await fetch(authorizeUrl(platform, params), { redirect: 'manual' });
  expect(response.status).toBe(400);
  expect(response.headers.get('location')).toBeNull();
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  return response.text();
}

async function expectRedirectError(url: string, error: string) {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.get('location')!);
  expect(location.origin + location.pathname).toBe(webRedirectUri);
  expect(location.searchParams.get('error')).toBe(error);
  expect(location.searchParams.get('iss')).toBe(platform.url);
  return location;
}

describe('A1 unknown or missing client_id', () => {
  it('shows an error page and never redirects', async () => {
    expect(await expectErrorPage({ ...good, client_id: 'nobody' })).toContain('Unknown application');
    const { client_id: _omit, ...withoutClient } = good;
    await expectErrorPage(withoutClient);
  });
});

describe('A2 redirect_uri not byte-identical to the registered one', () => {
  const variants = [
    'http://127.0.0.1:5173/auth/callback/',
    'http://127.0.0.1:5173/auth/Callback',
    'HTTP://127.0.0.1:5173/auth/callback',
    'http://127.0.0.1:5173:443/auth/callback',
    'http://127.0.0.1:443/auth/callback',
    'http://127.0.0.1:5173/auth/callback?x=1',
    'http://127.0.0.1:5173/auth/callback/extra',
    'http://127.0.0.1:5173/auth/callback#frag',
    'http://127.0.0.1:5173@evil.test/auth/callback',
    'http://127.0.0.1.evil.test:5173/auth/callback',
  ];
  it.each(variants)('refuses %s with an error page', async (redirectUri) => {
    await expectErrorPage({ ...good, redirect_uri: redirectUri });
  });
  it('refuses a missing redirect_uri', async () => {
    const { redirect_uri: _omit, ...withoutRedirect } = good;
    await expectErrorPage(withoutRedirect);
  });
});

describe('A3 unknown scope, or the user declines', () => {
  it('redirects with invalid_scope and the same state', async () => {
    const location = await expectRedirectError(
      authorizeUrl(platform, { ...good, scope: 'admin' }),
      'invalid_scope',
    );
    expect(location.searchParams.get('state')).toBe('xyz');
  });
  it('redirects with access_denied and the same state when the user denies', async () => {
    const location = await authorizeThroughPages(platform, { decision: 'deny', state: 'deny-state' });
    expect(location.searchParams.get('error')).toBe('access_denied');
    expect(location.searchParams.get('state')).toBe('deny-state');
    expect(location.searchParams.get('code')).toBeNull();
  });
});

describe('A4 duplicated parameters, missing state', () => {
  it('answers invalid_request for a repeated parameter', async () => {
    const url = `${authorizeUrl(platform, good)}&scope=basic`;
    await expectRedirectError(url, 'invalid_request');
  });
  it('answers invalid_request without state when state is missing', async () => {
    const { state: _omit, ...withoutState } = good;
    const location = await expectRedirectError(authorizeUrl(platform, withoutState), 'invalid_request');
    expect(location.searchParams.has('state')).toBe(false);
  });
});

describe('A5 state with reserved characters', () => {
  it('returns the state exactly as sent, on success and on error', async () => {
    const state = 'a;b+c%20d=e&f g/?#';
    const success = await authorizeThroughPages(platform, { state });
    expect(success.searchParams.get('state')).toBe(state);
    expect(success.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const failure = await expectRedirectError(
      authorizeUrl(platform, { ...good, state, scope: 'nope' }),
      'invalid_scope',
    );
    expect(failure.searchParams.get('state')).toBe(state);
  });
});

describe('A6 PKCE parameters', () => {
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
  it.each([
    ['plain method', { code_challenge: challenge, code_challenge_method: 'plain' }],
    ['unknown method', { code_challenge: challenge, code_challenge_method: 'S512' }],
    ['challenge without method', { code_challenge: challenge }],
    ['method without challenge', { code_challenge_method: 'S256' }],
    ['malformed challenge', { code_challenge: 'short!', code_challenge_method: 'S256' }],
  ])('refuses %s with invalid_request', async (_name, extra) => {
    await expectRedirectError(authorizeUrl(platform, { ...good, ...extra }), 'invalid_request');
  });
});

describe('A7 forms without their CSRF token or from another origin', () => {
  async function loginPage() {
    const b = browser();
    const response = await b.get(authorizeUrl(platform, good));
    return { b, fields: hiddenFields(await response.text()) };
  }
  const credentials = { email: 'investor@demo.test', password: demoPassword };

  it('refuses a sign-in without the CSRF token', async () => {
    const { b, fields } = await loginPage();
    const response = await b.postForm(`${platform.url}/auth/login`, {
      ...fields,
      csrf_token: '',
      ...credentials,
    });
    expect(response.status).toBe(403);
    expect(b.jar.get('platform_session')).toBeUndefined();
  });
  it('refuses a sign-in with a token that belongs to another cookie', async () => {
    const { fields } = await loginPage();
    const other = browser();
    await other.get(authorizeUrl(platform, good));
    const response = await other.postForm(`${platform.url}/auth/login`, { ...fields, ...credentials });
    expect(response.status).toBe(403);
  });
  it('refuses a sign-in posted from another origin', async () => {
    const { b, fields } = await loginPage();
    const response = await b.postForm(
      `${platform.url}/auth/login`,
      { ...fields, ...credentials },
      { origin: 'http://evil.test' },
    );
    expect(response.status).toBe(403);
  });
  it('refuses a consent without the CSRF token or from another origin, and issues no code', async () => {
    const { b, fields } = await loginPage();
    const signedIn = await b.postForm(`${platform.url}/auth/login`, { ...fields, ...credentials });
    expect(signedIn.status).toBe(303);
    const consent = await b.get(new URL(signedIn.headers.get('location')!, platform.url).toString());
    const consentFields = hiddenFields(await consent.text());
    const withoutToken = await b.postForm(`${platform.url}/auth/login/oauth/authorize`, {
      ...consentFields,
      csrf_token: 'forged',
      decision: 'allow',
    });
    expect(withoutToken.status).toBe(403);
    expect(withoutToken.headers.get('location')).toBeNull();
    const crossOrigin = await b.postForm(
      `${platform.url}/auth/login/oauth/authorize`,
      { ...consentFields, decision: 'allow' },
      { origin: 'http://evil.test' },
    );
    expect(crossOrigin.status).toBe(403);
    expect(crossOrigin.headers.get('location')).toBeNull();
  });
});

describe('A8 framing by another site', () => {
  it('sends frame-ancestors none on the sign-in and consent pages', async () => {
    const response = await fetch(authorizeUrl(platform, good));
    expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(response.headers.get('x-frame-options')).toBe('DENY');
  });
});

describe('A9 repeated wrong passwords', () => {
  it('holds the account after ten failures (from the fifth on), even for the right password, with the same message', async () => {
    const b = browser();
    const page = await b.get(authorizeUrl(platform, good));
    const fields = hiddenFields(await page.text());
    const wrongPassword = await b.postForm(`${platform.url}/auth/login`, {
      ...fields,
      email: 'issuer@demo.test',
      password: 'wrong-password',
    });
    expect(wrongPassword.status).toBe(401);
    const wrongText = await wrongPassword.text();
    const unknownEmail = await b.postForm(`${platform.url}/auth/login`, {
      ...fields,
      email: 'nobody@demo.test',
      password: demoPassword,
    });
    expect(unknownEmail.status).toBe(401);
    // The answer does not tell which part was wrong.
    const message = (html: string) => /role="alert"[^>]*>([^<]*)</.exec(html)?.[1];
    expect(message(await unknownEmail.text())).toBe(message(wrongText));

    for (let i = 0; i < 9; i++) {
      await b.postForm(`${platform.url}/auth/login`, {
        ...fields,
        email: 'issuer@demo.test',
        password: `wrong-${i}`,
      });
    }
    const locked = await b.postForm(`${platform.url}/auth/login`, {
      ...fields,
      email: 'issuer@demo.test',
      password: demoPassword,
    });
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(b.jar.get('platform_session')).toBeUndefined();

    // Once the wait is over (a minute after the fifth failure) the right password works again.
    platform.advance(16 * 60 * 1000);
    const fresh = await b.get(authorizeUrl(platform, good));
    const again = await b.postForm(`${platform.url}/auth/login`, {
      ...hiddenFields(await fresh.text()),
      email: 'issuer@demo.test',
      password: demoPassword,
    });
    expect(again.status).toBe(303);
  });
});

describe("H10 a line break in the sign-in form's return_to", () => {
  it.each([
    ['CR/LF', '\r\nSet-Cookie: planted=1'],
    ['LF', '\nLocation: http://evil.test/'],
    ['NUL', '\u0000'],
  ])("answers %s with the sign-in page's own 400 and signs nobody in", async (_name, tail) => {
    const b = browser();
    const page = await b.get(authorizeUrl(platform, good));
    const fields = hiddenFields(await page.text());
    const response = await b.postForm(`${platform.url}/auth/login`, {
      ...fields,
      return_to: fields.return_to + tail,
      email: 'investor@demo.test',
      password: demoPassword,
    });
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.getSetCookie().join('\n')).not.toContain('planted');
    expect(await response.text()).toContain('Invalid sign-in link');
    expect(b.jar.get('platform_session')).toBeUndefined();
  });
});

describe('sign-in pages', () => {
  it('have the labelled fields and buttons that curl users and tests rely on', async () => {
    const b = browser();
    const login = await (await b.get(authorizeUrl(platform, good))).text();
    expect(login).toContain('<label for="email">Email</label>');
    expect(login).toContain('<label for="password">Password</label>');
    expect(login).toContain('>Sign in</button>');
    expect(formField(login, 'csrf_token')).toBeTruthy();
    const signedIn = await b.postForm(`${platform.url}/auth/login`, {
      ...hiddenFields(login),
      // A user who has not consented yet in this file.
      email: 'admin@demo.test',
      password: demoPassword,
    });
    const consent = await (
      await b.get(new URL(signedIn.headers.get('location')!, platform.url).toString())
    ).text();
    expect(consent).toContain('Asset Manager');
    expect(consent).toContain('<strong>full</strong>');
    expect(consent).toContain('name="decision" value="allow">Allow</button>');
    expect(consent).toContain('name="decision" value="deny" class="secondary">Deny</button>');
  });

  it('remembers consent per user, client and scope', async () => {
    const b = browser();
    const first = await authorizeThroughPages(platform, { browser: b, state: 'one' });
    expect(first.searchParams.get('code')).toBeTruthy();
    // Same user, client and scope: straight back with a code.
    const again = await b.get(authorizeUrl(platform, { ...good, state: 'two' }));
    expect(again.status).toBe(302);
    expect(new URL(again.headers.get('location')!).searchParams.get('state')).toBe('two');
    // Another scope asks again.
    const basic = await b.get(authorizeUrl(platform, { ...good, scope: 'basic' }));
    expect(basic.status).toBe(200);
    expect(await basic.text()).toContain('<strong>basic</strong>');
  });

  it('asks a signed-in person to sign in again under prompt=login, and the new sign-in replaces the old', async () => {
    const b = browser();
    await authorizeThroughPages(platform, { browser: b, email: 'investor@demo.test', state: 'one' });
    const firstSession = b.jar.get('platform_session')!;
    const withoutPrompt = await b.get(authorizeUrl(platform, { ...good, state: 'two' }));
    expect(withoutPrompt.status).toBe(302);

    // Someone else at the same browser, after the app signed its user out.
    const page = await b.get(authorizeUrl(platform, { ...good, state: 'three', prompt: 'login consent' }));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('name="password"');
    const fields = hiddenFields(html);
    expect(fields.return_to).not.toContain('prompt');
    const signedIn = await b.postForm(`${platform.url}/auth/login`, {
      ...fields,
      email: 'issuer@demo.test',
      password: demoPassword,
    });
    expect(signedIn.status).toBe(303);
    // Back to the same request, which now goes on: to the consent page, a new user for this client.
    const resumed = await b.get(new URL(signedIn.headers.get('location')!, platform.url).toString());
    expect(resumed.status).toBe(200);
    const consent = await resumed.text();
    expect(consent).toContain('issuer@demo.test');
    expect(hiddenFields(consent).state).toBe('three');

    // The first person's session is over: their old cookie signs nobody in.
    const replay = await fetch(authorizeUrl(platform, { ...good, state: 'four' }), {
      redirect: 'manual',
      headers: { cookie: `platform_session=${firstSession}` },
    });
    expect(replay.status).toBe(200);
    expect(await replay.text()).toContain('name="password"');
  });

  it('escapes the client name it shows', async () => {
    const client = await addClient(platform, ['http://127.0.0.1:9999/cb'], '<script>alert(1)</script>');
    const html = await (
      await fetch(
        authorizeUrl(platform, {
          ...good,
          client_id: client.client_id,
          redirect_uri: 'http://127.0.0.1:9999/cb',
        }),
      )
    ).text();
    expect(html).not.toContain('<script>alert(1)</script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('sets the session cookie HttpOnly and SameSite=Lax', async () => {
    const b = browser();
    const page = await b.get(authorizeUrl(platform, good));
    const response = await b.postForm(`${platform.url}/auth/login`, {
      ...hiddenFields(await page.text()),
      email: 'investor@demo.test',
      password: demoPassword,
    });
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('platform_session='));
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });
});
