import sharp from 'sharp';
import type { Page } from '@playwright/test';
import { expect, openSignedIn, storedAccessToken, test } from './support/app';
import { card, slot } from './support/page-parts';
import { platformUrl } from './support/urls';

/**
 * An entity with more files than one page of the platform's list (100): the page shows the newest
 * hundred, and the rest arrive as the person scrolls down to them.
 */

/** Uploads a file as the signed-in person, with the page's current token (renewed while it runs). */
async function uploadAs(page: Page, fields: Record<string, string>, file: { name: string; buffer: Buffer }) {
  await expect
    .poll(
      async () => {
        const response = await page.request.post(`${platformUrl}/v2/core/assets`, {
          headers: { authorization: `Bearer ${await storedAccessToken(page)}` },
          multipart: { ...fields, file: { ...file, mimeType: 'image/png' } },
        });
        return response.status();
      },
      // Tokens live seconds here: a 401 is asked again once the page has renewed its token.
      { timeout: 30_000 },
    )
    .toBe(201);
}

test('an entity with more than one page of files loads the rest when scrolled', async ({ page, login }) => {
  test.setTimeout(240_000);
  const investor = await login({ role: 'investor' });
  await openSignedIn(page);
  const accreditation = investor.accreditation!;
  const photo = await sharp({ create: { width: 8, height: 6, channels: 3, background: '#3a6' } })
    .png()
    .toBuffer();
  // 105 photos of a driver's licence, one after another: licence-000 is the oldest.
  const name = (i: number) => `licence-${String(i).padStart(3, '0')}.png`;
  for (let i = 0; i < 105; i++) {
    await uploadAs(
      page,
      {
        file_type: 'drivers_license',
        assetable_type: 'Accreditation',
        assetable_id: String(accreditation.id),
      },
      { name: name(i), buffer: photo },
    );
  }

  await page.goto(`/accreditations/${accreditation.id}`);
  const licence = slot(page, "Driver's licence");
  const cards = licence.getByRole('list', { name: 'Files', exact: true }).getByRole('listitem');
  // The first page: the newest hundred, newest first.
  await expect(cards).toHaveCount(100);
  await expect(cards.first()).toContainText(name(104));
  await expect(card(licence, name(4))).toHaveCount(0);

  // Scrolling down, as a person does, brings the other five as the end of the files comes near,
  // without a click.
  await page.mouse.move(200, 300);
  await expect(async () => {
    await page.mouse.wheel(0, 600);
    await expect(cards).toHaveCount(105, { timeout: 500 });
  }).toPass({ timeout: 60_000 });
  await expect(cards.last()).toContainText(name(0));
  await expect(page.getByRole('status').filter({ hasText: 'all 105 files are shown' })).toHaveCount(1);
  await expect(page.getByRole('button', { name: 'Show more files' })).toHaveCount(0);
});

test('an entity page in the order of the job: slots most looked-at first, empty ones a line each, files only for someone who can only look', async ({
  page,
  login,
  loginElsewhere,
}) => {
  // A product is recognised by its logo and cover before anyone reads its charter.
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  await expect(page.locator('.slot h2')).toHaveText([
    'Logo',
    'Cover image',
    'Pitch deck',
    'One-page teaser',
    'Business plan',
    'Charter document',
  ]);

  // A new investor's accreditation: the letter first, and every empty slot a line of its own with
  // its rules folded away until asked for.
  const { person: newcomer, page: investor } = await loginElsewhere({
    role: 'investor',
    name: `Olga Order ${Date.now()}`,
  });
  const accreditation = newcomer.accreditation!;
  await investor.goto(`/accreditations/${accreditation.id}`);
  await expect(investor.locator('.slot h2').first()).toHaveText('Letter of accreditation');
  const letter = slot(investor, 'Letter of accreditation');
  await expect(letter.getByText('No letter of accreditation yet')).toBeVisible();
  const rules = letter.getByText(/Accepts a PDF/);
  await expect(rules).toBeHidden();
  await letter.getByText('What it takes').click();
  await expect(rules).toBeVisible();
  await investor.close();

  // An admin may look at it but not change it: nothing is there yet, and nothing offers to upload.
  const { page: admin } = await loginElsewhere({ role: 'admin' });
  await admin.goto(`/accreditations/${accreditation.id}`);
  await expect(admin.getByText('Nothing shared yet.')).toBeVisible();
  await expect(admin.getByRole('region', { name: 'Letter of accreditation' })).toHaveCount(0);
  await expect(admin.getByRole('button', { name: /^Choose a file/ })).toHaveCount(0);
  await admin.close();
});
