import AxeBuilder from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, signInDemo, test } from './support/app';
import { multiPagePdf, quadrantsPng } from './support/files';
import { sendForReview } from './support/accreditation';
import { cropAndSend, dropFiles, settled } from './support/page-parts';

/** Every page in both colour schemes, on a 360 px phone and a desktop (web-app.md Quality bar). */
const looks = [
  { colorScheme: 'light', width: 360, height: 740 },
  { colorScheme: 'dark', width: 360, height: 740 },
  { colorScheme: 'light', width: 1280, height: 800 },
  { colorScheme: 'dark', width: 1280, height: 800 },
] as const;

/** axe-core's serious and critical findings, in every look, as "rule: where" lines. */
async function seriousViolations(page: Page, what: string, only?: string) {
  const found: string[] = [];
  for (const look of looks) {
    await page.setViewportSize({ width: look.width, height: look.height });
    await page.emulateMedia({ colorScheme: look.colorScheme });
    const axe = new AxeBuilder({ page });
    // A part that lives only seconds (an undo notice) is checked alone, which takes a fraction of the time.
    if (only) axe.include(only);
    const results = await axe.analyze();
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
  await settled(page);
}

// Each page is checked in four looks by axe, which takes seconds of CPU per check: on a busy
// machine a journey of several pages needs minutes, not the default minute.
test.describe.configure({ timeout: 240_000 });

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

// One test per page: each has its own time limit, so a slow machine does not add them up.
for (const [path, ready] of [
  ['/', 'Hello, Ivy Investor'],
  ['/users/1', /Ivy Investor/],
  ['/accreditations/1', /Ivy Investor/],
  ['/indications-of-interest/1', /Interest in/],
  ['/no-such-page', 'Page not found'],
] as const) {
  test(`the investor’s page ${path}`, async ({ page, context }) => {
    await signInDemo(context, 'investor@demo.test');
    await visit(page, path, ready);
    expect(await seriousViolations(page, path)).toEqual([]);
  });
}

test('the offerings, as an investor browses them', async ({ page, context }) => {
  await signInDemo(context, 'investor@demo.test');
  await visit(page, '/offerings', 'Offerings');
  // The product cards, each with its logo or initial, and the end of the list.
  await expect(page.getByRole('list', { name: 'Offerings' }).getByRole('link')).not.toHaveCount(0);
  await expect(page.getByText(/offerings? (are|is) shown|only offering/)).toBeVisible();
  expect(await seriousViolations(page, 'offerings')).toEqual([]);
});

for (const [path, ready] of [
  ['/', 'Hello, Isaac Issuer'],
  ['/products/2', /Harbor Street Lofts/],
  ['/investments/1', /Solar Farm Fund I/],
] as const) {
  test(`the issuer’s page ${path}`, async ({ page, context }) => {
    await signInDemo(context, 'issuer@demo.test');
    await visit(page, path, ready);
    expect(await seriousViolations(page, path)).toEqual([]);
  });
}

test('the issuer’s team member page and its dialogs', async ({ page, login }) => {
  // An issuer of the test's own: the delete below is held, so the avatar is left to the clean-up.
  const { product } = await login({ role: 'issuer' });
  const found: string[] = [];
  await visit(page, `/team-members/${product.team_member.id}`, `${product.name} founder`);
  found.push(...(await seriousViolations(page, 'a team member page')));
  // The crop dialog, opened from an avatar slot.
  const avatar = page.getByRole('region', { name: 'Team member avatar', exact: true });
  await avatar.getByTestId('input-team_member_avatar').setInputFiles(await quadrantsPng('omar.png'));
  await expect(page.getByRole('dialog', { name: 'Crop omar.png' })).toBeVisible();
  found.push(...(await seriousViolations(page, 'crop dialog')));
  await page.getByRole('dialog').getByRole('button', { name: cropAndSend }).click();
  // The viewer, with the crop outlined.
  await avatar.getByRole('button', { name: 'Open omar.png' }).click();
  await expect(
    page.getByRole('dialog', { name: 'omar.png' }).getByRole('img', { name: 'omar.png' }),
  ).toBeVisible();
  found.push(...(await seriousViolations(page, 'viewer')));
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  // A delete's undo notice. On a busy machine axe's four looks can outlast the undo window: the
  // delete it then sends is held unanswered, so the notice, Undo and all, is still there to check.
  await page.route(/\/v2\/core\/assets\/\d+$/, (route) =>
    route.request().method() === 'DELETE' ? undefined : route.fallback(),
  );
  await avatar.getByRole('button', { name: 'Delete omar.png' }).click();
  await expect(avatar.getByRole('button', { name: 'Undo deleting omar.png' })).toBeVisible();
  found.push(...(await seriousViolations(page, 'undo notice', '.delete-notices')));
  expect(found).toEqual([]);
});

test('the admin’s review queue, the viewer beside the decision, and the decided list', async ({
  page,
  login,
  loginElsewhere,
}) => {
  // An investor whose documents wait for review, so that the queue has a document to open.
  const { person: newcomer, page: investor } = await loginElsewhere({
    role: 'investor',
    name: `Axel Checker ${Date.now()}`,
  });
  const accreditation = newcomer.accreditation!;
  await investor.getByRole('link', { name: accreditation.name }).click();
  await sendForReview(investor);
  await investor.context().close();

  await login({ role: 'admin', name: 'Ada Admin' });
  const found: string[] = [];
  await visit(page, '/', 'Hello, Ada Admin');
  found.push(...(await seriousViolations(page, 'home')));
  await visit(page, '/review', 'Review accreditations');
  found.push(...(await seriousViolations(page, 'review queue')));
  const item = page
    .getByRole('listitem')
    .filter({ has: page.getByRole('heading', { name: accreditation.name, exact: true }) });
  // The reasons a rejection asks for, open.
  await item.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(item.getByRole('group', { name: 'Why is it rejected?' })).toBeVisible();
  found.push(...(await seriousViolations(page, 'rejection reasons')));
  await item.getByRole('button', { name: 'Cancel rejection' }).click();
  await item.getByRole('button', { name: 'Open letter.pdf' }).click();
  const viewer = page.getByRole('dialog', { name: 'letter.pdf' });
  await expect(viewer.getByRole('img', { name: 'Page 1 of 1' })).toHaveAttribute('aria-busy', 'false');
  found.push(...(await seriousViolations(page, 'viewer with the decision form')));
  await page.keyboard.press('Escape');
  await visit(page, '/review?show=decided', 'Review accreditations');
  found.push(...(await seriousViolations(page, 'decided')));
  expect(found).toEqual([]);
});

test('the question a page-wide drop asks', async ({ page, context }) => {
  await signInDemo(context, 'issuer@demo.test');
  await visit(page, '/products/2', /Harbor Street Lofts/);
  await dropFiles(page.getByRole('heading', { level: 1 }), [await multiPagePdf('where.pdf', ['Where'])]);
  await expect(page.getByRole('dialog', { name: 'Where does where.pdf go?' })).toBeVisible();
  expect(await seriousViolations(page, 'page-wide drop question')).toEqual([]);
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
});
