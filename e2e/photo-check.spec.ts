import type { Page } from '@playwright/test';
import { checklist, uploadLetter } from './support/accreditation';
import { expect, storedAccessToken, test } from './support/app';
import { documentPhoto } from './support/files';
import { card, cropAndSend, slot } from './support/page-parts';
import { platformUrl } from './support/urls';

type Measures = Record<string, number>;

/**
 * The photo check (issue 31) in a real browser: the worker decodes the chosen photo and measures it
 * before a byte is sent. A blurry licence is named as such beside the photo, "Use anyway" uploads it;
 * a sharp one goes straight to the crop dialog without a word.
 */

/** How long the browser's checks took, from the marks the app leaves in the page's timeline. */
const checks = (page: Page) =>
  page.evaluate(() =>
    performance
      .getEntriesByName('photo-check')
      .map((entry) => (entry as PerformanceMark).detail as { ms: number; measures: Measures }),
  );

/**
 * The browser's and the platform's measures of one photo agree within these: the same functions on
 * pixels reduced to the same size by different resizers (Chromium's, libvips's).
 */
function expectAgreement(browser: Measures, platform: Measures) {
  expect(browser.short_side).toBe(platform.short_side);
  expect(Math.abs(browser.luminance! - platform.luminance!)).toBeLessThan(3);
  expect(Math.abs(browser.clipped_share! - platform.clipped_share!)).toBeLessThan(0.01);
  expect(Math.abs(browser.glare_share! - platform.glare_share!)).toBeLessThan(0.01);
  // Sharpness spans four orders of magnitude; a quarter either way keeps every label the same.
  const ratio = (browser.sharpness! + 1) / (platform.sharpness! + 1);
  expect(ratio).toBeGreaterThan(0.75);
  expect(ratio).toBeLessThan(1.33);
}

test('a blurry licence photo is named before upload and goes up with "Use anyway"; a sharp 12 MP one passes without a word; the admin sees the flag and "Unreadable or blurry" chosen', async ({
  page,
  login,
  loginElsewhere,
}) => {
  test.setTimeout(180_000);
  const account = await login({ role: 'investor', name: `Pia Photo ${Date.now()}` });
  await page.goto('/');
  await page.getByRole('link', { name: account.accreditation!.name }).click();
  const licence = slot(page, "Driver's licence");
  await licence.getByRole('radio', { name: 'One photo shows both sides' }).check();

  await licence
    .getByTestId('input-drivers_license')
    .setInputFiles(await documentPhoto('blurry-licence.jpg', { blur: 8 }));
  await expect(
    licence.getByText('The photo is blurry — hold the phone steady and let it focus.'),
  ).toBeVisible();
  await expect(licence.getByRole('img', { name: 'The photo you chose: blurry-licence.jpg' })).toBeVisible();
  await expect(licence.getByRole('heading', { name: 'This photo may be hard to read' })).toBeFocused();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await licence.getByRole('button', { name: 'Use anyway' }).click();
  await page
    .getByRole('dialog', { name: 'Crop blurry-licence.jpg' })
    .getByRole('button', { name: cropAndSend })
    .click();
  await expect(card(licence, 'blurry-licence.jpg')).toBeVisible();

  // A sharp photo from a 12-megapixel camera: no warning, straight on to the crop dialog.
  await licence
    .getByTestId('input-drivers_license')
    .setInputFiles(await documentPhoto('sharp-licence.jpg', { width: 4000, height: 3000 }));
  const crop = page.getByRole('dialog', { name: 'Crop sharp-licence.jpg' });
  await expect(crop).toBeVisible();
  await expect(licence.getByText('This photo may be hard to read')).toHaveCount(0);
  const seen = await checks(page);
  const times = seen.map((check) => check.ms);
  expect(times).toHaveLength(2);
  test.info().annotations.push({ type: 'photo check, 12 MP (ms)', description: times[1]!.toFixed(0) });
  console.log(`photo check in Chromium: 2.2 MP ${times[0]!.toFixed(0)} ms, 12 MP ${times[1]!.toFixed(0)} ms`);
  await crop.getByRole('button', { name: cropAndSend }).click();
  await expect(card(licence, 'sharp-licence.jpg')).toBeVisible();

  // The platform measured the stored files again: the same numbers within the stated tolerance.
  const token = await storedAccessToken(page);
  const answer = await page.request.get(
    `${platformUrl}/v2/core/accreditations/${account.accreditation!.id}`,
    {
      headers: { authorization: `Bearer ${token}` },
    },
  );
  const { assets } = (await answer.json()) as {
    assets: { name: string; quality?: { measures: Measures } }[];
  };
  const platformMeasures = (name: string) => assets.find((a) => a.name === name)!.quality!.measures;
  for (const [index, name] of ['blurry-licence.jpg', 'sharp-licence.jpg'].entries()) {
    console.log(
      `${name}: browser ${JSON.stringify(seen[index]!.measures)}, platform ${JSON.stringify(platformMeasures(name))}`,
    );
    expectAgreement(seen[index]!.measures, platformMeasures(name));
  }

  // Sent for review, the admin's queue flags the blurry one and starts a rejection from its reason.
  await uploadLetter(page, 'letter.pdf', ['Accredited investor']);
  await checklist(page).getByRole('button', { name: 'Send for review' }).click();
  await expect(page.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();
  const { page: admin } = await loginElsewhere({ role: 'admin' });
  await admin.goto('/review');
  await admin.getByRole('searchbox', { name: 'Search by investor name or email' }).fill(account.email);
  const item = admin
    .getByRole('listitem')
    .filter({ has: admin.getByRole('heading', { name: account.accreditation!.name, exact: true }) });
  const blurry = item.getByRole('listitem').filter({ hasText: 'blurry-licence.jpg' });
  await expect(blurry.getByText('Possibly blurry')).toBeVisible();
  await expect(
    item
      .getByRole('listitem')
      .filter({ hasText: 'sharp-licence.jpg' })
      .getByText(/Possibly/),
  ).toHaveCount(0);
  await item.getByRole('button', { name: 'Reject', exact: true }).click();
  await expect(item.getByRole('radio', { name: 'Unreadable or blurry' })).toBeChecked();
});
