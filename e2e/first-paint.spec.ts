import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page, Request } from '@playwright/test';
import { expect, openSignedIn, test } from './support/app';
import { platformUrl, webUrl } from './support/urls';

/**
 * performance.md W4: the first paint waits for nothing. The page the proxy serves paints the app's
 * shell before any JavaScript runs, and carries the app's settings so the app needs no round trip of
 * its own before its first page.
 */

const landingHeading = 'Your investment documents, in one place';
/** The bench's phone (scripts/bench/web-vitals.ts). */
const phone = { width: 412, height: 823 };
/** The app's own chunks (Vite's output), as opposed to the page and its stylesheet. */
const appScripts = '**/assets/*.js';

/** A request held until the test lets it go: what a slow phone network does to the app's code. */
function holdRequests(page: Page, pattern: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const held: Request[] = [];
  return {
    held,
    release,
    install: () =>
      page.route(pattern, async (route) => {
        held.push(route.request());
        await released;
        // The page may have moved on (a form sent it elsewhere) and dropped the request meanwhile.
        await route.continue().catch(() => undefined);
      }),
  };
}

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the landing is painted: the header, what the app is and a Sign in button (W4)', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('link', { name: 'Asset Manager' })).toBeVisible();
    await expect(page.getByRole('heading', { level: 1, name: landingHeading })).toBeVisible();
    await expect(
      page.getByText('Asset Manager keeps the files of your investment platform account'),
    ).toBeVisible();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeEnabled();
  });

  test('a deeper page is painted as the header and a loading status, never the landing', async ({ page }) => {
    await page.goto('/products/1');
    await expect(page.getByRole('link', { name: 'Asset Manager' })).toBeVisible();
    await expect(page.getByRole('status')).toHaveText('Loading…');
    await expect(page.getByRole('heading', { name: landingHeading })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Sign in' })).toHaveCount(0);
  });
});

test('the painted landing is where the app then draws its own: nothing moves when it takes over', async ({
  page,
}) => {
  const boxes = async () => ({
    brand: await page.getByRole('link', { name: 'Asset Manager' }).boundingBox(),
    heading: await page.getByRole('heading', { name: landingHeading }).boundingBox(),
    lead: await page.locator('p.lead').boundingBox(),
    button: await page.getByRole('button', { name: 'Sign in' }).boundingBox(),
  });
  await page.setViewportSize(phone);
  const scripts = holdRequests(page, appScripts);
  await scripts.install();
  await page.goto('/', { waitUntil: 'commit' });
  await expect(page.getByRole('heading', { name: landingHeading })).toBeVisible();
  // Painted while the app's code has not arrived: the page's own button, in its form.
  await expect(page.locator('form button[type="submit"]')).toHaveText('Sign in');
  expect(scripts.held.length).toBeGreaterThan(0);
  const painted = await boxes();

  scripts.release();
  // The app's own landing: its button signs in by script, without a form.
  await expect(page.locator('button[type="button"]', { hasText: 'Sign in' })).toBeVisible();
  await expect(page.locator('form')).toHaveCount(0);
  expect(await boxes()).toEqual(painted);
});

test('a Sign in pressed before the app has loaded shows it is on its way, and signs in', async ({ page }) => {
  const scripts = holdRequests(page, appScripts);
  await scripts.install();
  await page.goto('/', { waitUntil: 'commit' });
  await page.getByRole('button', { name: 'Sign in' }).click();
  // The page says so while the app's code is still on its way.
  await expect(page.getByRole('button', { name: 'Opening sign-in…' })).toBeDisabled();
  expect(new URL(page.url()).searchParams.has('sign-in')).toBe(true);

  scripts.release();
  // The app carries it out once it has loaded: the platform's sign-in page.
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Email').fill('issuer@demo.test');
  await page.getByLabel('Password').fill('demo-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  const allow = page.getByRole('button', { name: 'Allow' });
  const home = page.getByRole('heading', { name: 'Hello, Isaac Issuer' });
  await expect(allow.or(home)).toBeVisible();
  if (await allow.isVisible()) await allow.click();
  await expect(home).toBeVisible();
  // Back on / without the request in the address: a reload does not sign in again.
  expect(new URL(page.url()).search).toBe('');
});

test('signed in, / is painted as the home as it loads, and nothing on it moves until the home is whole', async ({
  page,
  login,
}) => {
  // A name of ordinary length, as the demo issuer's: a long one would wrap on a phone, past the one line
  // kept for the greeting.
  const issuer = await login({ role: 'issuer', name: 'Isaac Issuer' });
  await openSignedIn(page);
  // On a phone the user menu has rows of its own: the header would grow by them.
  await page.setViewportSize(phone);
  // Every layout shift the browser counts (CLS), from the page's first moment.
  await page.addInitScript(() => {
    const shifts: number[] = [];
    (window as unknown as { shifts: number[] }).shifts = shifts;
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries() as (PerformanceEntry & { value: number })[])
        shifts.push(entry.value);
    }).observe({ type: 'layout-shift', buffered: true });
  });
  const scripts = holdRequests(page, appScripts);
  await scripts.install();
  // Who is signed in comes later still: the greeting's room and the menu's rows are kept for it.
  const account = holdRequests(page, '**/v2/core/me');
  await account.install();
  await page.goto('/', { waitUntil: 'commit' });
  const lead = page.getByText('Choose what you want to manage files for.');
  await expect(lead).toBeVisible();
  await expect(page.getByRole('status')).toHaveText('Loading your files…');
  await expect(page.getByRole('heading', { name: landingHeading })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Sign in' })).toHaveCount(0);
  // Painted before any script: the header's Offerings link works already.
  await expect(page.getByRole('link', { name: 'Offerings' })).toHaveAttribute('href', '/offerings');
  expect(scripts.held.length).toBeGreaterThan(0);
  const header = await page.locator('header').boundingBox();
  const painted = await lead.boundingBox();
  const room = await page.locator('.heading-placeholder').boundingBox();

  scripts.release();
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
  expect(await page.locator('header').boundingBox()).toEqual(header);
  expect(await lead.boundingBox()).toEqual(painted);

  account.release();
  const greeting = page.getByRole('heading', { level: 1, name: `Hello, ${issuer.name}` });
  await expect(greeting).toBeVisible();
  await expect(page.getByRole('link', { name: issuer.product.name, exact: true })).toBeVisible();
  await expect(page.getByText(issuer.email)).toBeVisible();
  // The name came: the header kept its height, the greeting took the room kept for it, the lead stayed.
  expect(await page.locator('header').boundingBox()).toEqual(header);
  const heading = await greeting.boundingBox();
  expect([heading?.y, heading?.height]).toEqual([room?.y, room?.height]);
  expect(await lead.boundingBox()).toEqual(painted);
  const shifts = await page.evaluate(() => (window as unknown as { shifts: number[] }).shifts);
  expect(shifts).toEqual([]);
});

test("signed in, an entity page is painted as its outline, and takes the entity's name and files in place", async ({
  page,
  login,
}) => {
  const { product } = await login({ role: 'issuer' });
  await openSignedIn(page);
  await page.setViewportSize(phone);
  const scripts = holdRequests(page, appScripts);
  await scripts.install();
  await page.goto(`/products/${product.id}`, { waitUntil: 'commit' });
  // Before any script: where the page sits, what kind of entity, its first slot and what it is for.
  const firstSlot = page.getByRole('heading', { level: 2, name: 'Logo' });
  await expect(firstSlot).toBeVisible();
  await expect(page.getByText(/^The product's logo\./)).toBeVisible();
  await expect(page.getByRole('status')).toHaveText('Loading the product…');
  await expect(page.getByRole('navigation', { name: 'Breadcrumb' })).toHaveText('Home / Product');
  expect(scripts.held.length).toBeGreaterThan(0);
  const heading = page.getByRole('heading', { level: 1 });
  // The app replaces the painted page with its own, so the browser counts no layout shift whatever
  // moves: where things are is compared instead, as a person would see them move.
  const boxes = async () => ({
    header: await page.locator('header').boundingBox(),
    breadcrumb: await page.getByRole('navigation', { name: 'Breadcrumb' }).boundingBox(),
    heading: await heading.boundingBox(),
    // Where the slot's name starts: an empty slot's name shares its line with "No logo yet", so its
    // box is as wide as the word, where the outline's spans the line.
    firstSlot: await firstSlot.boundingBox().then((box) => box && { x: box.x, y: box.y }),
  });
  const painted = await boxes();

  scripts.release();
  // The app's page: the name where the room was kept for it, the files in their slots.
  await expect(heading).toHaveText(new RegExp(product.name));
  await expect(page.getByRole('region', { name: 'Logo' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Loading the product…' })).toHaveCount(0);
  // What only the platform knows, the product's investment and team member, came on the line kept
  // for them under the title: nothing moved.
  // (The admin command names a product's team member after the product: "NAME founder".)
  await expect(page.getByRole('navigation', { name: 'Related' })).toContainText(`${product.name} founder`);
  expect(await boxes()).toEqual(painted);
});

test('a page opened in a new tab gets its account and its entity with the session, not after it', async ({
  page,
  login,
}) => {
  const issuer = await login({ role: 'issuer' });
  await openSignedIn(page);
  // A new tab holds no access token: its session is renewed through the proxy's cookie.
  const tab = await page.context().newPage();
  const sent: { url: URL; method: string; body: string | null }[] = [];
  tab.on('request', (request) =>
    sent.push({ url: new URL(request.url()), method: request.method(), body: request.postData() }),
  );
  await tab.goto(`/products/${issuer.product.id}`);
  await expect(tab.getByRole('heading', { level: 1, name: new RegExp(issuer.product.name) })).toBeVisible();
  await expect(tab.getByText(issuer.email)).toBeVisible();
  const beforeShown = [...sent];

  // One renewal, which asked for the page's reads and brought them: the account and the product.
  const renewals = beforeShown.filter((r) => r.url.href === `${webUrl}/oauth/token`);
  expect(renewals).toHaveLength(1);
  const productPath = `/v2/core/products/${issuer.product.id}`;
  expect(new URLSearchParams(renewals[0]!.body ?? '').get('read')).toBe(`/v2/core/me ${productPath}`);
  // So the page asked the platform for neither itself before showing them.
  const reads = beforeShown.filter((r) => r.url.origin === platformUrl && r.method !== 'OPTIONS');
  expect(reads.map((r) => r.url.pathname)).not.toContain('/v2/core/me');
  expect(reads.map((r) => r.url.pathname)).not.toContain(productPath);
});

test('the app starts on the settings in the page: /app-config.json is not a round trip before the first page', async ({
  page,
  login,
}) => {
  const issuer = await login({ role: 'issuer' });
  await openSignedIn(page);
  const asked: string[] = [];
  // Held for good: were the app waiting for it, the home would never appear.
  await page.route('**/app-config.json', (route) => void asked.push(route.request().url()));
  await page.reload();
  await expect(page.getByRole('heading', { name: `Hello, ${issuer.name}` })).toBeVisible();
  expect(asked).toEqual([]);
});

test.describe('while the proxy is still finding out what its platform offers', () => {
  let webUrl = '';
  let stopProxy = () => {};

  test.beforeAll(async () => {
    test.setTimeout(120_000);
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(port));
      });
    });
    webUrl = `http://127.0.0.1:${port}`;
    // A platform nobody answers for: the proxy asks it again (when a page next needs to know) once a
    // while has passed, and until it has its answer the page cannot carry the settings.
    const proxy = spawn(process.execPath, ['--import', 'tsx', 'src/proxy/main.ts'], {
      env: {
        ...process.env,
        WEB_PORT: String(port),
        WEB_PUBLIC_URL: webUrl,
        WEB_DIST_DIR: 'dist',
        PLATFORM_BASE_URL: 'http://127.0.0.1:9',
        OAUTH_CLIENT_SECRET: 'not-used-here',
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    stopProxy = () => proxy.kill();
    const page = () =>
      fetch(`${webUrl}/`, { headers: { accept: 'text/html' } }).then(
        (response) => response.text(),
        () => '',
      );
    await expect.poll(page, { timeout: 60_000 }).toContain('id="app-config">{');
    // The first answer (unreachable) is in; the page stops carrying it once it is due to be asked again.
    await expect.poll(page, { timeout: 60_000 }).toContain('rel="preload" href="/app-config.json"');
  });
  test.afterAll(() => stopProxy());

  test('the page asks for the settings beside the app code, not after it, and only once', async ({
    page,
  }) => {
    const configRequests: Request[] = [];
    page.on('request', (request) => {
      if (request.url().endsWith('/app-config.json')) configRequests.push(request);
    });
    const scripts = holdRequests(page, appScripts);
    await scripts.install();
    await page.goto(webUrl, { waitUntil: 'commit' });
    await expect(page.getByRole('heading', { name: landingHeading })).toBeVisible();
    // The app's code is held, so it cannot have asked: the page did (its preload).
    await expect.poll(() => configRequests.length).toBe(1);
    expect(scripts.held.length).toBeGreaterThan(0);

    scripts.release();
    await expect(page.locator('button[type="button"]', { hasText: 'Sign in' })).toBeVisible();
    // The app took the answer to the page's request: it did not ask a second time.
    expect(configRequests).toHaveLength(1);
  });
});
