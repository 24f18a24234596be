import { mkdirSync } from 'node:fs';
import type { Page } from '@playwright/test';
import { expect, test } from './support/app';
import { multiPagePdf, quadrantsPng, rotatedPhotoJpeg } from './support/files';
import { sendForReview } from './support/accreditation';
import { cropAndSend, settled } from './support/page-parts';

/**
 * The main pages at phone and desktop width. Written to test-results/ on every run (so the pages are
 * at least rendered and checked), and to docs/screenshots/ for the README with UPDATE_SCREENSHOTS=1.
 */
const folder = process.env.UPDATE_SCREENSHOTS ? 'docs/screenshots' : 'test-results/screenshots';
const sizes = [
  { name: 'phone', width: 360, height: 780 },
  { name: 'desktop', width: 1280, height: 860 },
] as const;

/** The whole page, except under a dialog, where only the screen makes sense. */
async function shoot(page: Page, name: string, { dialog = false } = {}) {
  mkdirSync(folder, { recursive: true });
  for (const size of sizes) {
    await page.setViewportSize({ width: size.width, height: size.height });
    await settled(page);
    await page.screenshot({
      path: `${folder}/${name}-${size.name}.png`,
      fullPage: !dialog,
    });
  }
}

test('screenshots of the main pages', async ({ page, login, loginElsewhere }) => {
  // Three people, several pages, a decision that waits out its undo window: minutes on a busy machine.
  test.setTimeout(420_000);
  await page.goto('/');
  await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
  await shoot(page, 'landing');

  // People of the test's own, named as the demo's, so that the pictures read as the demo does.
  const issuer = await login({
    role: 'issuer',
    name: 'Isaac Issuer',
    products: ['Solar Farm Fund I', 'Harbor Street Lofts'],
  });
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Hello, Isaac Issuer' })).toBeVisible();
  await shoot(page, 'home');

  await page.goto(`/products/${issuer.products[1]!.id}`);
  const slot = (label: string) => page.getByRole('region', { name: label, exact: true });
  await slot('Logo')
    .getByTestId('input-logo')
    .setInputFiles(await quadrantsPng('harbor-logo.png'));
  await expect(page.getByRole('dialog', { name: 'Crop harbor-logo.png' })).toBeVisible();
  await shoot(page, 'crop', { dialog: true });
  await page.getByRole('button', { name: cropAndSend }).click();
  await slot('Cover image')
    .getByTestId('input-cover_image')
    .setInputFiles(await rotatedPhotoJpeg('harbor.jpg'));
  await page.getByRole('button', { name: cropAndSend }).click();
  await slot('Pitch deck')
    .getByTestId('input-pitch_deck')
    .setInputFiles(await multiPagePdf('harbor-deck.pdf', ['Harbor']));
  // The deck's thumbnail is drawn after its upload is answered: its card shows it once ready.
  await expect(slot('Pitch deck').getByRole('img', { name: 'Preview of harbor-deck.pdf' })).toBeVisible({
    timeout: 60_000,
  });
  await expect(slot('Cover image').getByRole('img', { name: 'Preview of harbor.jpg' })).toBeVisible();
  await page.setViewportSize({ width: 1280, height: 860 });
  await page.reload();
  await expect(slot('Logo').getByRole('img', { name: 'Preview of harbor-logo.png' })).toBeVisible();
  // The logo slot holds one file: it now offers to replace it.
  await expect(slot('Logo').getByRole('button', { name: 'Replace logo' })).toBeVisible();
  await shoot(page, 'product');

  // The viewer, from the logo's card.
  await slot('Logo').getByRole('button', { name: 'Open harbor-logo.png' }).click();
  await expect(page.getByRole('dialog', { name: 'harbor-logo.png' }).getByRole('img')).toBeVisible();
  await shoot(page, 'viewer', { dialog: true });
  await page.keyboard.press('Escape');

  // A new investor sends a letter and a licence for review, so that the queue has something in it.
  const { person: newcomer, page: investor } = await loginElsewhere({
    role: 'investor',
    name: 'Nia Newcomer',
  });
  const accreditation = newcomer.accreditation!;
  await investor.getByRole('link', { name: accreditation.name }).click();
  await sendForReview(investor, 'accreditation-letter.pdf');

  const { page: admin } = await loginElsewhere({ role: 'admin', name: 'Ada Admin' });
  await admin.goto('/review');
  await expect(admin.getByRole('heading', { name: 'Review accreditations' })).toBeVisible();
  await shoot(admin, 'review');

  // The admin asks for a signed letter; the investor's page then shows the decision and the history.
  const item = admin
    .getByRole('listitem')
    .filter({ has: admin.getByRole('heading', { name: accreditation.name, exact: true }) });
  await item.getByRole('button', { name: 'Reject', exact: true }).click();
  await item.getByRole('radio', { name: 'Not signed' }).check();
  await item.getByLabel(/Note to the investor/).fill('Please upload the copy your adviser signed.');
  await item.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(admin.getByText(`Rejected ${accreditation.name}.`)).toHaveCount(0, { timeout: 30_000 });
  await admin.context().close();
  await investor.reload();
  await expect(
    investor.getByRole('region', { name: 'History' }).getByText(/Ada Admin rejected the accreditation/),
  ).toBeVisible();
  await shoot(investor, 'accreditation');
});
