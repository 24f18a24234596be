import { expect, test, type Page } from '@playwright/test';
import { addUser } from './support/app';
import { platformUrl, webUrl } from './support/urls';

const redirectUri = `${webUrl}/auth/callback`;
const authorizePath = (state: string, scope = 'full') =>
  `${platformUrl}/auth/login/oauth/authorize?${new URLSearchParams({ client_id: 'asset-manager', redirect_uri: redirectUri, state, scope })}`;

/**
 * The sign-in service is under test here, not the app: the address the platform redirects to is read
 * from the request the browser makes for it, whatever the app then does with it (it cleans it away).
 */
const callbackRequest = (page: Page) =>
  page.waitForRequest((request) => request.url().startsWith(`${redirectUri}?`));

test('a person signs in, allows the app and returns with a code and the same state', async ({ page }) => {
  // Someone who has never allowed the app, whatever ran before: consent is remembered per user.
  const person = addUser('issuer');
  await page.goto(authorizePath('state;with+odd=chars&x'));
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await expect(page.getByText('Asset Manager')).toBeVisible();
  await page.getByLabel('Email').fill(person.email);
  await page.getByLabel('Password').fill(person.password);
  await page.getByRole('button', { name: 'Sign in' }).click();

  await expect(page.getByRole('heading', { name: 'Allow Asset Manager?' })).toBeVisible();
  await expect(page.getByText(person.email)).toBeVisible();
  const callback = callbackRequest(page);
  await page.getByRole('button', { name: 'Allow' }).click();

  const url = new URL((await callback).url());
  expect(url.searchParams.get('state')).toBe('state;with+odd=chars&x');
  expect(url.searchParams.get('code')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  expect(url.searchParams.get('iss')).toBe(platformUrl);
});

test('a wrong password keeps the person on the form with a message, using only the keyboard', async ({
  page,
}) => {
  await page.goto(authorizePath('s1'));
  await expect(page.getByLabel('Email')).toBeFocused();
  await page.keyboard.type('investor@demo.test');
  await page.keyboard.press('Tab');
  await page.keyboard.type('not-the-password');
  await page.keyboard.press('Enter');
  await expect(page.getByRole('alert')).toHaveText('The email or password is incorrect.');
  await expect(page.getByLabel('Email')).toHaveValue('investor@demo.test');
  // The email is right there: the next thing to type is the password.
  await expect(page.getByLabel('Password')).toBeFocused();
});

test('a held sign-in counts down to when the person may try again', async ({ page }) => {
  // An address nobody has: it is held like any account, and holds no one else back.
  const email = `nobody-${Date.now()}@demo.test`;
  for (let attempt = 0; ; attempt++) {
    expect(attempt).toBeLessThan(10);
    await page.goto(authorizePath(`held-${attempt}`));
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(`guess-${attempt}`);
    await page.getByRole('button', { name: 'Sign in' }).click();
    if ((await page.getByRole('alert').textContent())?.includes('Too many failed sign-ins')) break;
  }
  const countdown = page.getByRole('alert').locator('.countdown');
  const shown = () =>
    countdown.evaluate((element) => {
      const [minutes, seconds] = getComputedStyle(element).counterReset.match(/\d+/g)!.map(Number);
      return minutes! * 60 + seconds!;
    });
  const first = await shown();
  expect(first).toBeGreaterThan(0);
  await expect.poll(shown).toBeLessThan(first);
  // The wait stays in words for screen readers.
  await expect(page.getByRole('alert')).toContainText(/Try again in (1 minute|\d+ seconds)\./);
});

test('declining sends the person back with access_denied', async ({ page }) => {
  await page.goto(authorizePath('declined-state', 'basic'));
  await page.getByLabel('Email').fill('investor@demo.test');
  await page.getByLabel('Password').fill('demo-password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByText('basic', { exact: true })).toBeVisible();
  const callback = callbackRequest(page);
  await page.getByRole('button', { name: 'Deny' }).click();
  const url = new URL((await callback).url());
  expect(url.searchParams.get('error')).toBe('access_denied');
  expect(url.searchParams.get('state')).toBe('declined-state');
});

test('an unknown application gets an error page, not a redirect', async ({ page }) => {
  const response = await page.goto(authorizePath('s').replace('asset-manager', 'unknown-app'));
  expect(response?.status()).toBe(400);
  await expect(page.getByRole('heading', { name: 'Unknown application' })).toBeVisible();
});
