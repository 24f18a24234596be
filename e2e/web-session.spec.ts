import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { addUser, expect, openSignedIn, signIn, storedAccessToken, test } from './support/app';
import { accessTokenTtlSeconds, platformDataDir, platformUrl, proxyLogFile, webUrl } from './support/urls';

/** Every token request the page makes to the proxy, to check that some flows make none (P6). */
function watchTokenRequests(page: Page) {
  const seen: string[] = [];
  page.on('request', (request) => {
    if (request.url() === `${webUrl}/oauth/token`) seen.push(request.postData() ?? '');
  });
  return seen;
}

/** The hidden fields of the platform's sign-in or consent form, as the page has them. */
async function hiddenFields(page: Page): Promise<Record<string, string>> {
  const inputs = page.locator('input[type="hidden"]');
  const fields: Record<string, string> = {};
  for (const input of await inputs.all())
    fields[(await input.getAttribute('name'))!] = (await input.getAttribute('value')) ?? '';
  return fields;
}

/**
 * Runs the sign-in up to the platform's redirect back to the app, and keeps that callback address
 * without letting the app use it: tests then replay or alter it. The app starts the sign-in (so the
 * state and PKCE verifier are in its storage); the forms are then sent through the page's own
 * cookies without following redirects, so the page never reaches the callback. (Holding the app's
 * scripts back instead was not reliable: Chromium may load the callback in a fresh process, whose
 * first requests can pass before interception is set up there.)
 */
async function callbackUrlOf(page: Page, email: string) {
  await page.goto('/');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByLabel('Password')).toBeVisible();
  const send = (path: string, form: Record<string, string>) =>
    page.request.post(`${platformUrl}${path}`, { form, maxRedirects: 0, headers: { origin: platformUrl } });
  const signedIn = await send('/auth/login', {
    ...(await hiddenFields(page)),
    email,
    password: 'demo-password',
  });
  expect(signedIn.status()).toBe(303);
  let answer = await page.request.get(new URL(signedIn.headers().location!, platformUrl).href, {
    maxRedirects: 0,
  });
  if (answer.status() === 200) {
    // The consent page: allow, with its form's fields.
    await page.setContent(await answer.text());
    answer = await send('/auth/login/oauth/authorize', { ...(await hiddenFields(page)), decision: 'allow' });
  }
  expect([302, 303]).toContain(answer.status());
  const callback = new URL(answer.headers().location!);
  expect(callback.origin + callback.pathname).toBe(`${webUrl}/auth/callback`);
  return callback;
}

test.describe('signing in', () => {
  test('the issuer sees both products, their investments and team members', async ({ page }) => {
    await signIn(page, 'issuer@demo.test');
    await expect(page.getByRole('heading', { name: 'Hello, Isaac Issuer' })).toBeVisible();
    await expect(page.getByText('issuer@demo.test')).toBeVisible();
    const products = page.getByRole('region', { name: 'Products' });
    await expect(products.getByRole('link')).toHaveText(['Solar Farm Fund I', 'Harbor Street Lofts']);
    await expect(page.getByRole('region', { name: 'Investments' }).getByRole('link')).toHaveCount(2);
    await expect(page.getByRole('region', { name: 'Team members' }).getByRole('link')).toHaveText([
      'Grace Founder',
      'Omar Partner',
    ]);
    await products.getByRole('link', { name: 'Harbor Street Lofts' }).click();
    await expect(page.getByRole('heading', { name: /Harbor Street Lofts/ })).toBeVisible();
    expect(new URL(page.url()).pathname).toMatch(/^\/products\/\d+$/);
  });

  test('the investor sees their profile, accreditation and indication of interest', async ({ page }) => {
    await signIn(page, 'investor@demo.test');
    await expect(page.getByRole('heading', { name: 'Hello, Ivy Investor' })).toBeVisible();
    await expect(page.getByRole('region', { name: 'Profile' }).getByRole('link')).toHaveText([
      'Ivy Investor',
    ]);
    await expect(page.getByRole('region', { name: 'Accreditations' }).getByRole('link')).toHaveText([
      'Accreditation of Ivy Investor',
    ]);
    await expect(page.getByRole('region', { name: 'Indications of interest' }).getByRole('link')).toHaveText([
      'Interest in Solar Farm Fund I',
    ]);
    await expect(page.getByRole('region', { name: 'Products' })).toHaveCount(0);
  });

  test('the admin is signed in with the admin role', async ({ page }) => {
    await signIn(page, 'admin@demo.test');
    await expect(page.getByRole('heading', { name: 'Hello, Ada Admin' })).toBeVisible();
    await expect(page.getByText('Admin', { exact: true })).toBeVisible();
  });

  test('a page asked for while signed out is shown after signing in', async ({ page }) => {
    await page.goto('/team-members/1');
    await expect(page).toHaveURL(new RegExp(`^${platformUrl}/auth/login`));
    await signIn(page, 'issuer@demo.test');
    await expect(page).toHaveURL(`${webUrl}/team-members/1`);
    await expect(page.getByRole('heading', { name: /Grace Founder/ })).toBeVisible();
  });

  test('declining consent ends on a clear message, and Try again starts over', async ({ page }) => {
    const person = addUser('investor');
    const tokenRequests = watchTokenRequests(page);
    await page.goto('/');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByLabel('Email').fill(person.email);
    await page.getByLabel('Password').fill(person.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();

    await expect(page.getByRole('heading', { name: 'You did not allow access' })).toBeVisible();
    expect(page.url()).toBe(`${webUrl}/auth/callback`);
    expect(tokenRequests).toEqual([]);
    await page.getByRole('button', { name: 'Try again' }).click();
    await expect(page.getByRole('button', { name: 'Allow' })).toBeVisible();
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect(page.getByRole('heading', { name: /^Hello/ })).toBeVisible();
  });
});

test.describe('callbacks that must not sign anyone in (P6)', () => {
  test('a tampered state makes no token request, says so, and cleans the address', async ({ page }) => {
    const callback = await callbackUrlOf(page, 'investor@demo.test');
    callback.searchParams.set('state', `${callback.searchParams.get('state')}x`);
    const tokenRequests = watchTokenRequests(page);
    await page.goto(callback.href);
    await expect(page.getByRole('heading', { name: 'This sign-in link is no longer valid' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
    expect(tokenRequests).toEqual([]);
    expect(page.url()).toBe(`${webUrl}/auth/callback`);
  });

  test('a replayed callback makes no second token request', async ({ page }) => {
    const callback = await callbackUrlOf(page, 'investor@demo.test');
    const tokenRequests = watchTokenRequests(page);
    await page.goto(callback.href);
    await expect(page.getByRole('heading', { name: 'Hello, Ivy Investor' })).toBeVisible();
    expect(tokenRequests).toHaveLength(1);
    expect(page.url()).toBe(`${webUrl}/`);

    await page.goto(callback.href);
    await expect(page.getByRole('heading', { name: 'This sign-in link is no longer valid' })).toBeVisible();
    expect(tokenRequests).toHaveLength(1);
    expect(page.url()).toBe(`${webUrl}/auth/callback`);
  });

  test('a code the platform refuses ends on a message, not a blank page', async ({ page }) => {
    const callback = await callbackUrlOf(page, 'investor@demo.test');
    callback.searchParams.set('code', 'A'.repeat(43));
    await page.goto(callback.href);
    await expect(page.getByRole('heading', { name: 'The sign-in took too long' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
  });

  test('an unreachable platform ends on a message with Try again', async ({ page }) => {
    const callback = await callbackUrlOf(page, 'investor@demo.test');
    await page.route(`${webUrl}/oauth/token`, (route) => route.abort('connectionrefused'));
    await page.goto(callback.href);
    await expect(page.getByRole('heading', { name: 'The platform could not be reached' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
  });
});

test.describe('the session', () => {
  test('a reload keeps the session, and the refresh token is out of reach of scripts (P9)', async ({
    page,
    context,
  }) => {
    await signIn(page, 'issuer@demo.test');
    const refresh = (await context.cookies(webUrl + '/oauth/token')).find((c) => c.name === 'am_refresh');
    expect(refresh).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Strict', path: '/oauth' });
    expect(await page.evaluate(() => document.cookie)).not.toContain('am_refresh');
    const pageStorage = await page.evaluate(() => JSON.stringify({ ...localStorage, ...sessionStorage }));
    expect(pageStorage).not.toContain(refresh!.value);

    await page.getByRole('link', { name: 'Solar Farm Fund I', exact: true }).click();
    await expect(page.getByRole('heading', { name: /Solar Farm Fund I/ })).toBeVisible();
    await page.reload();
    await expect(page.getByRole('heading', { name: /Solar Farm Fund I/ })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  });

  test('a new tab continues the session through the proxy cookie', async ({ page, context, login }) => {
    const { product } = await login({ role: 'issuer' });
    await openSignedIn(page);
    const second = await context.newPage();
    await second.goto(`/products/${product.id}`);
    await expect(second.getByRole('heading', { name: new RegExp(product.name) })).toBeVisible();
  });

  test('an expiring access token is renewed without the user noticing', async ({ page, login }) => {
    // The page's clock, so that the token's lifetime passes at once rather than in real seconds.
    await page.clock.install();
    const { product } = await login({ role: 'issuer' });
    await openSignedIn(page);
    const first = await storedAccessToken(page);
    const leftPlatform: string[] = [];
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.url().startsWith(platformUrl))
        leftPlatform.push(request.url());
    });
    // Past the token's lifetime: the app renews it in the background, with nothing done on the page.
    await page.clock.fastForward((accessTokenTtlSeconds + 2) * 1000);
    await expect.poll(() => storedAccessToken(page), { timeout: 30_000 }).not.toBe(first);
    await page.getByRole('link', { name: product.name, exact: true }).click();
    await expect(page.getByRole('heading', { name: new RegExp(product.name) })).toBeVisible();
    expect(leftPlatform).toEqual([]);
  });

  test('a request refused with 401 is retried once after renewal', async ({ page, login }) => {
    const { accreditation } = await login({ role: 'investor' });
    await openSignedIn(page);
    // A token the platform no longer accepts, as after a revocation: the app renews and carries on.
    await page.evaluate(() => {
      const key = Object.keys(sessionStorage).find((k) => k.startsWith('oidc.user:'))!;
      const user = JSON.parse(sessionStorage.getItem(key)!) as { access_token: string };
      sessionStorage.setItem(key, JSON.stringify({ ...user, access_token: 'revoked-token' }));
    });
    const refused: number[] = [];
    page.on('response', (response) => {
      if (response.url().startsWith(`${platformUrl}/v2/core/`) && response.status() === 401) refused.push(1);
    });
    await page.getByRole('link', { name: accreditation!.name }).click();
    await expect(page.getByRole('heading', { name: new RegExp(accreditation!.name) })).toBeVisible();
    expect(refused).toHaveLength(1);
    expect(await storedAccessToken(page)).not.toBe('revoked-token');
  });

  test('signing out ends the session everywhere, and signing back in takes the password again', async ({
    page,
    context,
    login,
  }) => {
    const investor = await login({ role: 'investor' });
    await openSignedIn(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    expect((await context.cookies(webUrl + '/oauth/token')).map((c) => c.name)).not.toContain('am_refresh');
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);

    // Nothing left to renew from: a protected page sends the visitor to the platform, which asks for
    // the password although its own sign-in is still alive, and then back to the page.
    await page.goto(`/users/${investor.id}`);
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    expect(page.url()).toMatch(new RegExp(`^${platformUrl}/auth/login/oauth/authorize\\?.*prompt=login`));
    await signIn(page, investor.email, investor.password);
    await expect(page.getByRole('heading', { name: new RegExp(investor.name) })).toBeVisible();
    expect(page.url()).toBe(`${webUrl}/users/${investor.id}`);
    await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();

    // Signed in again, the platform's sign-in is remembered once more: no password after a reload.
    await page.reload();
    await expect(page.getByRole('heading', { name: new RegExp(investor.name) })).toBeVisible();
  });

  test('after a sign-out, the next person at the same browser signs in as themselves', async ({
    page,
    login,
  }) => {
    const investor = await login({ role: 'investor' });
    await openSignedIn(page);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await signIn(page, 'issuer@demo.test');
    await expect(page.getByRole('heading', { name: 'Hello, Isaac Issuer' })).toBeVisible();
    await expect(page.getByText('issuer@demo.test')).toBeVisible();
    await expect(page.getByRole('link', { name: new RegExp(investor.name) })).toHaveCount(0);
  });
});

test.describe('P1: the client secret stays in the proxy', () => {
  const secret = () =>
    (JSON.parse(readFileSync(join(platformDataDir, 'web-client.json'), 'utf8')) as { client_secret: string })
      .client_secret;

  function filesUnder(dir: string): string[] {
    return readdirSync(dir).flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? filesUnder(path) : [path];
    });
  }

  test('it is in no file of the built app, no response to the browser, no log line', async ({ page }) => {
    const value = secret();
    expect(value.length).toBeGreaterThan(20);
    for (const file of filesUnder('dist')) expect(readFileSync(file, 'latin1'), file).not.toContain(value);

    const bodies: string[] = [];
    page.on('response', async (response) => {
      if (response.url().startsWith(webUrl)) {
        bodies.push(JSON.stringify(response.headers()), await response.text().catch(() => ''));
      }
    });
    await signIn(page, 'issuer@demo.test');
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Hello, Isaac Issuer' })).toBeVisible();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();

    expect(bodies.length).toBeGreaterThan(5);
    for (const body of bodies) expect(body).not.toContain(value);
    const log = readFileSync(proxyLogFile, 'utf8');
    expect(log).toContain('/oauth/token');
    expect(log).not.toContain(value);
  });
});

test('the app pages send a CSP without inline scripts, and forbid framing (P11)', async ({ page }) => {
  const response = await page.goto('/');
  const csp = response!.headers()['content-security-policy']!;
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).toContain("frame-ancestors 'none'");
  expect(response!.headers()['x-content-type-options']).toBe('nosniff');
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  await signIn(page, 'issuer@demo.test');
  await expect(page.getByRole('heading', { name: 'Hello, Isaac Issuer' })).toBeVisible();
  expect(violations).toEqual([]);
});

test('the proxy finds everything our platform offers and lets the app call it directly', async ({
  request,
}) => {
  const config = (await (await request.get('/app-config.json')).json()) as Record<string, unknown>;
  // Found by the proxy's probe: CORS preflights, RFC 8414 metadata and the API description.
  expect(config.apiBaseUrl).toBe(platformUrl);
  expect(config.capabilities).toEqual({
    me: true,
    entityReads: true,
    renditions: true,
    review: true,
    reviewHistory: true,
    offerings: true,
    refreshGrant: true,
    revoke: true,
    idempotencyKey: true,
    ifMatch: true,
    // OPTIONS /v2/core/uploads answers Tus-Resumable.
    resumableUploads: true,
  });
});
