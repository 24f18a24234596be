import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Browser, browser, hiddenFields } from '../testing/http-client';
import {
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
// Every test starts with nothing remembered: failures are forgotten a day after the last one.
beforeEach(() => platform.advance(25 * 60 * 60 * 1000));

const owner = 'issuer@demo.test';
const authorize = { client_id: 'asset-manager', redirect_uri: webRedirectUri, state: 's', scope: 'full' };

/** Posts the sign-in form from this browser, through a fresh sign-in page (as a person would). */
async function signIn(b: Browser, email: string, password: string) {
  const page = await b.get(authorizeUrl(platform, { ...authorize, prompt: 'login' }));
  return b.postForm(`${platform.url}/auth/login`, { ...hiddenFields(await page.text()), email, password });
}

/** The alert's text as a screen reader reads it (the countdown's markup left out). */
const alertOf = (html: string) => /role="alert"[^>]*>(.*?)<\/p>/s.exec(html)?.[1]?.replace(/<[^>]*>/g, '');

function deviceCookieOf(b: Browser) {
  const [name, value] = b.jar.entries().find(([n]) => n.startsWith('platform_device_'))!;
  return { name, value };
}

/** A browser the owner has signed in with before: it holds their device cookie. */
async function ownersBrowser() {
  const b = browser();
  await authorizeThroughPages(platform, { browser: b, email: owner });
  return b;
}

// Each test checks up to 25 passwords (scrypt): room for a busy machine.
describe('H6 an attacker cannot lock the owner out (OWASP device cookies)', { timeout: 300_000 }, () => {
  it('gives a browser that signed in a signed device cookie: HttpOnly, Secure, SameSite, naming the account (D1)', async () => {
    const b = browser();
    const response = await signIn(b, owner, demoPassword);
    expect(response.status).toBe(303);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('platform_device_'));
    // Named after the account, and naming it again in its signed value.
    expect(cookie).toMatch(/^platform_device_(\d+)=\1\.[\w-]+\.\d+\.[\w-]{43};/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/SameSite=Strict/i);
    expect(cookie).toMatch(/Path=\/auth\/login/i);
    expect(cookie).toMatch(/Max-Age=\d+/i);
  });

  it('lets the owner in from their own browser while 12 wrong passwords from another browser hold the account (A9 for the attacker)', async () => {
    const ownBrowser = await ownersBrowser();
    const attacker = browser();
    const answers: number[] = [];
    for (let i = 0; i < 12; i++) answers.push((await signIn(attacker, owner, `guess-${i}`)).status);
    // Failures are answered 401 until the account is held, then 429: the attacker is slowed down.
    expect(answers.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(answers.slice(5)).toEqual(Array(7).fill(429));

    const own = await signIn(ownBrowser, owner, demoPassword);
    expect(own.status).toBe(303);
    expect(own.headers.get('location')).toMatch(/^\/auth\/login\/oauth\/authorize\?/);

    // The attacker's browser, even with the right password, is still held.
    expect((await signIn(attacker, owner, demoPassword)).status).toBe(429);
  });

  it('holds an unknown browser with 429, Retry-After and a clear message, whatever the password (A9)', async () => {
    const attacker = browser();
    for (let i = 0; i < 5; i++) expect((await signIn(attacker, owner, `guess-${i}`)).status).toBe(401);

    const stranger = browser();
    const right = await signIn(stranger, owner, demoPassword);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(stranger.jar.get('platform_session')).toBeUndefined();
    const rightHtml = await right.text();
    expect(rightHtml).toContain('name="password"');
    const message = alertOf(rightHtml);
    expect(message).toMatch(/Too many failed sign-ins/);
    expect(message).toMatch(/Try again in (1 minute|\d+ seconds)\./);
    expect(message).toMatch(/browser you have signed in with before/);

    // The wait ticks down on the page without a script: a stylesheet of its own length animates it.
    const seconds = Number(right.headers.get('retry-after'));
    const link = new RegExp(`<link rel="stylesheet" href="(/auth/assets/wait-${seconds}\\.css)">`).exec(
      rightHtml,
    );
    expect(link).not.toBeNull();
    const css = await fetch(`${platform.url}${link![1]}`);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect(await css.text()).toContain(`animation: sign-in-wait ${seconds}s linear forwards`);
    // The held form is for the same person: the email stays, and the password is the next field.
    expect(rightHtml).toMatch(new RegExp(`id="email"[^>]*value="${owner}"`));
    expect(rightHtml).toMatch(/id="password"[^>]*autofocus/);

    // The right and a wrong password get the same answer: nothing tells which part was wrong. Only
    // the wait may differ, by the time between the requests (seconds on a busy machine).
    const sameWords = (text: string | undefined) =>
      text?.replace(/in (1 minute|\d+ seconds)\./, 'in (the wait).');
    const wrong = await signIn(browser(), owner, 'still-wrong');
    expect(wrong.status).toBe(429);
    expect(sameWords(alertOf(await wrong.text()))).toBe(sameWords(message));
    // An email nobody has is held the same way: throttling tells nothing about who has an account.
    for (let i = 0; i < 5; i++) await signIn(attacker, 'nobody@demo.test', `guess-${i}`);
    const unknown = await signIn(browser(), 'nobody@demo.test', 'anything');
    expect(unknown.status).toBe(429);
    expect(sameWords(alertOf(await unknown.text()))).toBe(sameWords(message));
  });

  it('holds guesses sent all at once like guesses sent one after another (D3)', async () => {
    const attacker = browser();
    const page = await attacker.get(authorizeUrl(platform, { ...authorize, prompt: 'login' }));
    const fields = hiddenFields(await page.text());
    const answers = await Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        attacker.postForm(`${platform.url}/auth/login`, { ...fields, email: owner, password: `guess-${i}` }),
      ),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(10).fill(429)]);
  });

  it('makes each further failure wait longer: 1, 2, 4, then 8 minutes', async () => {
    const attacker = browser();
    for (let i = 0; i < 5; i++) await signIn(attacker, owner, `guess-${i}`);
    const waits: number[] = [];
    for (let i = 0; i < 4; i++) {
      const held = await signIn(attacker, owner, 'guess');
      expect(held.status).toBe(429);
      const wait = Number(held.headers.get('retry-after'));
      waits.push(wait);
      platform.advance(wait * 1000);
      if (i < 3) expect((await signIn(attacker, owner, `late-guess-${i}`)).status).toBe(401);
    }
    // Seconds, minus whatever a busy machine took between the failure and the next attempt.
    const minutes = [1, 2, 4, 8];
    waits.forEach((wait, i) => {
      expect(wait).toBeLessThanOrEqual(minutes[i]! * 60);
      expect(wait).toBeGreaterThan(minutes[i]! * 60 - 30);
    });
    // Once the wait is over, the right password works from anywhere again.
    expect((await signIn(browser(), owner, demoPassword)).status).toBe(303);
  });

  it('throttles per address too: 20 failures over many accounts hold that address for every unknown browser', async () => {
    const ownBrowser = await ownersBrowser();
    const sprayer = browser();
    // One guess per account, so that no account is held: only the address adds up.
    for (let i = 0; i < 20; i++)
      expect((await signIn(sprayer, `someone-${i}@demo.test`, 'Winter2025!')).status).toBe(401);

    const fromSameAddress = await signIn(browser(), 'investor@demo.test', demoPassword);
    expect(fromSameAddress.status).toBe(429);
    expect(Number(fromSameAddress.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(alertOf(await fromSameAddress.text())).toMatch(/Too many failed sign-ins/);
    // A browser that signed in to its account before still gets through.
    expect((await signIn(ownBrowser, owner, demoPassword)).status).toBe(303);
  });

  it('trusts a device cookie only for the account it names, never a forged or expired one (D1)', async () => {
    const issuersBrowser = await ownersBrowser();
    const investorsBrowser = browser();
    await authorizeThroughPages(platform, { browser: investorsBrowser, email: 'investor@demo.test' });
    const issuers = deviceCookieOf(issuersBrowser);
    const investors = deviceCookieOf(investorsBrowser);
    const attacker = browser();
    for (const email of [owner, 'investor@demo.test'])
      for (let i = 0; i < 5; i++) await signIn(attacker, email, `guess-${i}`);

    // The issuer's browser is known for issuer@ only.
    expect((await signIn(issuersBrowser, 'investor@demo.test', demoPassword)).status).toBe(429);
    // An altered signature is worth nothing.
    const forged = browser();
    forged.jar.set(
      issuers.name,
      issuers.value.replace(
        /\.(.)([^.]*)$/,
        (_m, c: string, rest: string) => `.${c === 'A' ? 'B' : 'A'}${rest}`,
      ),
    );
    expect((await signIn(forged, owner, demoPassword)).status).toBe(429);
    // The issuer's cookie put under the investor's name does not pass for the investor.
    const swapped = browser();
    swapped.jar.set(investors.name, issuers.value);
    expect((await signIn(swapped, 'investor@demo.test', demoPassword)).status).toBe(429);
    // The real ones do.
    expect((await signIn(investorsBrowser, 'investor@demo.test', demoPassword)).status).toBe(303);
    expect((await signIn(issuersBrowser, owner, demoPassword)).status).toBe(303);

    // Past its 90 days, even a cookie the browser still sends is worth nothing.
    platform.advance(91 * 24 * 60 * 60 * 1000);
    for (let i = 0; i < 5; i++) await signIn(attacker, owner, `guess-${i}`);
    expect((await signIn(issuersBrowser, owner, demoPassword)).status).toBe(429);
  });

  it('stops trusting a device cookie that keeps failing: after 10 failures it is one more unknown browser (D2)', async () => {
    const ownBrowser = await ownersBrowser();
    for (let i = 0; i < 10; i++) expect((await signIn(ownBrowser, owner, `typo-${i}`)).status).toBe(401);
    // The device's own failures did not count against the account: others are not held.
    expect((await signIn(browser(), owner, demoPassword)).status).toBe(303);
    // The device is now one more unknown browser: its failures count for the account and address.
    for (let i = 0; i < 5; i++) expect((await signIn(ownBrowser, owner, `typo-${i}`)).status).toBe(401);
    expect((await signIn(ownBrowser, owner, demoPassword)).status).toBe(429);
  });
});

describe('the sign-in form after a failed attempt', () => {
  it('keeps the email and puts the password first; a fresh form starts at the email', async () => {
    const b = browser();
    const fresh = await b.get(authorizeUrl(platform, { ...authorize, prompt: 'login' }));
    const freshHtml = await fresh.text();
    expect(freshHtml).toMatch(/id="email"[^>]*autofocus/);
    expect(freshHtml).not.toMatch(/id="password"[^>]*autofocus/);

    const wrong = await signIn(b, owner, 'not-the-password');
    expect(wrong.status).toBe(401);
    const html = await wrong.text();
    expect(alertOf(html)).toBe('The email or password is incorrect.');
    expect(html).toMatch(new RegExp(`id="email"[^>]*value="${owner}"`));
    expect(html).not.toMatch(/id="email"[^>]*autofocus/);
    expect(html).toMatch(/id="password"[^>]*autofocus/);
    // The password itself is never written back into the page.
    expect(html).not.toContain('not-the-password');
  });

  it('answers 404 for a countdown stylesheet that is not one', async () => {
    for (const path of ['wait-0.css', 'wait-abc.css', 'wait-123456.css', 'other.css']) {
      expect((await fetch(`${platform.url}/auth/assets/${path}`)).status).toBe(404);
    }
  });
});
