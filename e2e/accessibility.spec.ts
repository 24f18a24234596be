import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, signIn, test } from './support/app';
import { quadrantsPng } from './support/files';

/** Every page in both colour schemes, on a 360 px phone and a desktop (web-app.md Quality bar). */
const looks = [
  { colorScheme: 'light', width: 360, height: 740 },
  { colorScheme: 'dark', width: 360, height: 740 },
  { colorScheme: 'light', width: 1280, height: 800 },
  { colorScheme: 'dark', width: 1280, height: 800 },
] as const;

/** axe-core's serious and critical findings, in every look, as "rule: where" lines. */
async function seriousViolations(page: Page, what: string) {
  const found: string[] = [];
  for (const look of looks) {
    await page.setViewportSize({ width: look.width, height: look.height });
    await page.emulateMedia({ colorScheme: look.colorScheme });
    const results = await new AxeBuilder({ page }).analyze();
    for (const violation of results.violations) {
      if (violation.impact !== 'serious' && violation.impact !== 'critical') continue;
      const where = violation.nodes.map((n) => n.target.join(' ')).join(', ');
      found.push(`${what} (${look.colorScheme}, ${look.width}px) ${violation.id}: ${where}`);
    }
    // Nothing wider than the screen: a 360 px phone never scrolls sideways.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    if (overflow > 0) found.push(`${what} (${look.width}px) scrolls sideways by ${overflow}px`);
  }
  return found;
}

async function visit(page: Page, path: string, ready: string | RegExp) {
  await page.goto(path);
  await expect(page.getByRole('heading', { name: ready }).first()).toBeVisible();
  // Upload areas and previews load after the heading.
  await page.waitForLoadState('networkidle');
}

test('signed-out pages', async ({ page }) => {
  const found: string[] = [];
  await visit(page, '/', 'Your investment documents, in one place');
  found.push(...(await seriousViolations(page, 'landing')));
  await visit(
    page,
    '/auth/callback?error=access_denied&state=unknown',
    'This sign-in link is no longer valid',
  );
  found.push(...(await seriousViolations(page, 'callback failure')));
  expect(found).toEqual([]);
});

test('the investor’s pages', async ({ page }) => {
  await signIn(page, 'investor@demo.test');
  const found: string[] = [];
  await visit(page, '/', 'Hello, Ivy Investor');
  found.push(...(await seriousViolations(page, 'home')));
  for (const path of ['/users/1', '/accreditations/1', '/indications-of-interest/1']) {
    await visit(page, path, /Ivy Investor|Interest in/);
    found.push(...(await seriousViolations(page, path)));
  }
  await visit(page, '/no-such-page', 'Page not found');
  found.push(...(await seriousViolations(page, 'not found')));
  expect(found).toEqual([]);
});

test('the offerings, as an investor browses them', async ({ page }) => {
  await signIn(page, 'investor@demo.test');
  await visit(page, '/offerings', 'Offerings');
  // The product cards, each with its logo or initial, and the end of the list.
  await expect(page.getByRole('list', { name: 'Offerings' }).getByRole('link')).not.toHaveCount(0);
  await expect(page.getByText(/offerings? (are|is) shown|only offering/)).toBeVisible();
  expect(await seriousViolations(page, 'offerings')).toEqual([]);
});

test('the issuer’s pages and dialogs', async ({ page }) => {
  await signIn(page, 'issuer@demo.test');
  const found: string[] = [];
  await visit(page, '/', 'Hello, Isaac Issuer');
  found.push(...(await seriousViolations(page, 'home')));
  for (const path of ['/products/2', '/investments/1', '/team-members/2']) {
    await visit(page, path, /Harbor Street Lofts|Solar Farm Fund I|Omar Partner/);
    found.push(...(await seriousViolations(page, path)));
  }
  // The crop dialog, opened from an avatar slot.
  const avatar = page.getByRole('region', { name: 'Team member avatar', exact: true });
  await avatar.getByTestId('input-team_member_avatar').setInputFiles(await quadrantsPng('omar.png'));
  await expect(page.getByRole('dialog', { name: 'Crop omar.png' })).toBeVisible();
  found.push(...(await seriousViolations(page, 'crop dialog')));
  await page.getByRole('dialog').getByRole('button', { name: 'Crop and upload' }).click();
  // The viewer, with the crop outlined.
  await avatar.getByRole('button', { name: 'Open omar.png' }).click();
  await expect(
    page.getByRole('dialog', { name: 'omar.png' }).getByRole('img', { name: 'omar.png' }),
  ).toBeVisible();
  found.push(...(await seriousViolations(page, 'viewer')));
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // A delete's undo notice.
  await avatar.getByRole('button', { name: 'Delete omar.png' }).click();
  await expect(avatar.getByRole('button', { name: 'Undo deleting omar.png' })).toBeVisible();
  found.push(...(await seriousViolations(page, 'undo notice')));
  await avatar.getByRole('button', { name: 'Undo deleting omar.png' }).click();
  expect(found).toEqual([]);
});

test('the admin’s review queue', async ({ page }) => {
  await signIn(page, 'admin@demo.test');
  const found: string[] = [];
  await visit(page, '/', 'Hello, Ada Admin');
  found.push(...(await seriousViolations(page, 'home')));
  await visit(page, '/review', 'Review accreditations');
  found.push(...(await seriousViolations(page, 'review queue')));
  expect(found).toEqual([]);
});
