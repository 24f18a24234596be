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
