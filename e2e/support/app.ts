import { expect, type BrowserContext, type Page } from '@playwright/test';
import { handSessionTo, signInOverHttp } from './http-sign-in';
import { demoPassword } from './users';
import { platformUrl, webUrl } from './urls';

export { demoPassword };

/** Where the app and its platform are: the shared pair by default, or one a test started itself. */
export interface AppAddresses {
  webUrl: string;
  platformUrl: string;
}

/**
 * Signs in through the app as a person would: the landing page's button, the platform's form, and the
 * consent page when the platform asks (it remembers an earlier Allow). Ends back in the app.
 */
export async function signIn(
  page: Page,
  email: string,
  password = demoPassword,
  app: AppAddresses = { webUrl, platformUrl },
) {
  if (!page.url().startsWith(app.platformUrl)) {
    await page.goto(app.webUrl);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  const allow = page.getByRole('button', { name: 'Allow' });
  await expect(allow.or(page.locator('#main'))).toBeVisible();
  if (await allow.isVisible()) await allow.click();
  await page.waitForURL((url) => url.origin === app.webUrl && !url.pathname.startsWith('/auth/'));
}

/**
 * The app open on its start page in this tab for the person `login` signed in, as after signing in
 * here: once the page shows them signed in, the tab holds its access token, so a reload or the next
 * page starts from that token rather than from a renewal.
 */
export async function openSignedIn(page: Page) {
  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Sign out' })).toBeVisible();
}

/**
 * Signs a demo account into `context` over HTTP, without the sign-in pages: for the checks that look
 * at what only the demo data holds (an investor's indication of interest, products with files) and
 * change nothing. Tests that change data have people of their own (`login`).
 */
export async function signInDemo(context: BrowserContext, email: string) {
  await handSessionTo(context, await signInOverHttp(email, demoPassword));
}

/** The access token the app keeps for this tab (oidc-client-ts's user in sessionStorage). */
export async function storedAccessToken(page: Page): Promise<string | null> {
  return page.evaluate(() => {
    for (let i = 0; i < sessionStorage.length; i++) {
      const key = sessionStorage.key(i)!;
      if (key.startsWith('oidc.user:'))
        return (JSON.parse(sessionStorage.getItem(key)!) as { access_token: string }).access_token;
    }
    return null;
  });
}

export {
  expect,
  test,
  type Elsewhere,
  type Issuer,
  type Login,
  type LoginElsewhere,
  type LoginOptions,
  type Person,
} from './fixtures';
export { addUser, type AddedUser, type OwnProduct } from './users';
