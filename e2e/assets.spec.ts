import type { Page } from '@playwright/test';
import { expect, test } from './support/app';
import {
  cameraPhotoJpeg,
  documentPhoto,
  csvFile,
  multiPagePdf,
  oversizedPng,
  quadrantsPng,
  rotatedPhotoJpeg,
} from './support/files';
import { card, chooserName, colourOf, cropAndSend, pixelOf, settled, slot } from './support/page-parts';
import { platformUrl } from './support/urls';

/** Every asset-creating request the page makes, to prove a refused file sent nothing. */
function watchUploads(page: Page) {
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST' && request.url() === `${platformUrl}/v2/core/assets`)
      posts.push(request.url());
  });
  return posts;
}

test('the issuer uploads, crops, renames, hides, re-crops, opens and deletes files', async ({
  page,
  login,
  context,
}) => {
  test.setTimeout(120_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto('/');
  await page.getByRole('link', { name: product.name, exact: true }).click();
  await expect(page.getByRole('heading', { name: product.name })).toBeVisible();

  // A logo: cropped to its top-left (red) quadrant as a square, with the keyboard doing the framing.
  const logo = slot(page, 'Logo');
  await logo.getByTestId('input-logo').setInputFiles(await quadrantsPng('logo.png'));
  const crop = page.getByRole('dialog', { name: 'Crop logo.png' });
  await expect(crop).toBeVisible();
  await crop.getByRole('radio', { name: 'Square' }).check();
  await crop.getByRole('slider', { name: 'Zoom' }).fill('2');
  await crop.getByLabel('Crop frame').focus();
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowDown');
  await crop.getByRole('button', { name: cropAndSend }).click();
  // The finished row gives way to the file's card and one line that counts it.
  await expect(logo.getByText('1 file uploaded')).toBeVisible();
  const logoCard = card(logo, 'logo.png');
  const logoPreview = logoCard.getByRole('img', { name: 'Preview of logo.png' });
  await expect(logoPreview).toBeVisible();
  expect(await logoPreview.getAttribute('src')).toContain('variant=cropped');
  const cropped = await pixelOf(page, logoPreview, 0.5, 0.5);
  expect(cropped.width).toBe(cropped.height);
  expect(colourOf(cropped)).toBe('red');

  // A cover image from a phone photo stored sideways: the crop dialog shows it upright, 16:9.
  const cover = slot(page, 'Cover image');
  await cover.getByTestId('input-cover_image').setInputFiles(await rotatedPhotoJpeg('cover.jpg'));
  const coverCrop = page.getByRole('dialog', { name: 'Crop cover.jpg' });
  const shown = coverCrop.getByRole('img', { name: 'cover.jpg, to crop' });
  await expect(shown).toBeVisible();
  expect(await shown.evaluate((img: HTMLImageElement) => img.naturalHeight > img.naturalWidth)).toBe(true);
  await coverCrop.getByRole('button', { name: cropAndSend }).click();
  await expect(card(cover, 'cover.jpg').getByRole('img', { name: 'Preview of cover.jpg' })).toBeVisible();
  const coverPixels = await pixelOf(page, card(cover, 'cover.jpg').getByRole('img'), 0.5, 0.5);
  expect(coverPixels.width / coverPixels.height).toBeCloseTo(16 / 9, 1);

  // A pitch deck: no crop, uploaded straight away.
  const deck = slot(page, 'Pitch deck');
  const deckUpload = page.waitForResponse(
    (response) =>
      response.url() === `${platformUrl}/v2/core/assets` && response.request().method() === 'POST',
  );
  await deck
    .getByTestId('input-pitch_deck')
    .setInputFiles(await multiPagePdf('deck.pdf', ['Solar Farm', 'Page two']));
  await expect(card(deck, 'deck.pdf')).toBeVisible();
  // Its preview is the platform's thumbnail of page 1 (white paper above, a red band below), fetched
  // as a small rendition of the thumbnail asset, never the PDF itself (performance.md W3). The
  // platform draws it after answering the upload: the card shows the type until it is there, asking
  // again as the platform says (a busy machine draws at the lowest priority: a generous wait).
  const { asset: deckAsset } = (await (await deckUpload).json()) as { asset: { thumbnail_id?: string } };
  expect(deckAsset.thumbnail_id).toEqual(expect.any(String));
  const deckPreview = card(deck, 'deck.pdf').getByRole('img', { name: 'Preview of deck.pdf' });
  await expect(deckPreview).toBeVisible({ timeout: 60_000 });
  const deckPreviewUrl = new URL((await deckPreview.getAttribute('src'))!);
  expect(deckPreviewUrl.pathname).toBe(`/files/assets/${deckAsset.thumbnail_id}`);
  expect(deckPreviewUrl.searchParams.get('variant')).toBe('preview');
  const paper = await pixelOf(page, deckPreview, 0.05, 0.05);
  expect(paper.width / paper.height).toBeCloseTo(612 / 792, 1);
  expect(Math.min(paper.r, paper.g, paper.b)).toBeGreaterThan(230);
  expect(colourOf(await pixelOf(page, deckPreview, 0.5, 0.75))).toBe('red');

  // Rename in place, then make it private: both show at once and survive a reload.
  await card(deck, 'deck.pdf').getByRole('button', { name: 'Rename deck.pdf' }).click();
  await deck.getByLabel('New name for deck.pdf').fill('Deck 2026.pdf');
  await page.keyboard.press('Enter');
  const deckCard = card(deck, 'Deck 2026.pdf');
  await expect(deckCard.getByRole('paragraph').filter({ hasText: /^Deck 2026\.pdf$/ })).toBeVisible();
  await expect(deckCard.getByText('Everyone signed in to the platform can see this file.')).toBeVisible();
  await deckCard.getByRole('switch', { name: 'Private' }).check();
  await expect(deckCard.getByText('Only you and the platform’s admins can see this file.')).toBeVisible();
  await page.reload();
  await expect(card(deck, 'Deck 2026.pdf').getByRole('switch', { name: 'Private' })).toBeChecked();

  // Re-crop the logo to its bottom-right (yellow) corner; the preview follows.
  const before = await logoPreview.getAttribute('src');
  await logoCard.getByRole('button', { name: 'Edit crop of logo.png' }).click();
  const recrop = page.getByRole('dialog', { name: 'Crop logo.png' });
  await recrop.getByRole('slider', { name: 'Zoom' }).fill('2');
  await recrop.getByLabel('Crop frame').focus();
  for (let i = 0; i < 30; i++) await page.keyboard.press('ArrowLeft');
  for (let i = 0; i < 30; i++) await page.keyboard.press('ArrowUp');
  await recrop.getByRole('button', { name: 'Save crop' }).click();
  await expect(recrop).toBeHidden();
  await expect.poll(() => logoPreview.getAttribute('src')).not.toBe(before);
  const recropped = await pixelOf(page, logoPreview, 0.5, 0.5);
  expect(colourOf(recropped)).toBe('yellow');

  // Open shows the original inside the app; a new tab is one more click, through a fresh signed URL.
  await logoCard.getByRole('button', { name: 'Open logo.png' }).click();
  const viewer = page.getByRole('dialog', { name: 'logo.png' });
  await expect(viewer.getByRole('img', { name: 'logo.png' })).toBeVisible();
  const [opened] = await Promise.all([
    context.waitForEvent('page'),
    viewer.getByRole('link', { name: 'Open in a new tab (logo.png)' }).click(),
  ]);
  expect(opened.url()).toContain(`${platformUrl}/files/assets/`);
  await opened.close();
  await viewer.getByRole('button', { name: 'Close' }).click();
  await expect(viewer).toBeHidden();

  // Delete takes effect at once, with a few seconds to take it back; nothing is sent before then.
  const deletes: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'DELETE') deletes.push(request.url());
  });
  await card(deck, 'Deck 2026.pdf').getByRole('button', { name: 'Delete Deck 2026.pdf' }).click();
  await expect(card(deck, 'Deck 2026.pdf')).toHaveCount(0);
  await deck.getByRole('button', { name: 'Undo deleting Deck 2026.pdf' }).click();
  await expect(card(deck, 'Deck 2026.pdf')).toBeVisible();
  expect(deletes).toEqual([]);
  await card(deck, 'Deck 2026.pdf').getByRole('button', { name: 'Delete Deck 2026.pdf' }).click();
  await expect(deck.getByText('Deleted Deck 2026.pdf.')).toBeVisible();
  // Once the undo window has passed, the platform is told, and the notice goes.
  await expect.poll(() => deletes.length, { timeout: 30_000 }).toBe(1);
  await expect(deck.getByText('Deleted Deck 2026.pdf.')).toHaveCount(0);
  await page.reload();
  await expect(deck.getByText('No pitch deck yet')).toBeVisible();
});

test('previews cost a small fraction of their originals: the page fetches renditions only (W3)', async ({
  page,
  login,
}) => {
  test.setTimeout(90_000);
  const delivered = new Map<string, number>();
  page.on('response', async (response) => {
    if (response.url().startsWith(`${platformUrl}/files/assets/`))
      delivered.set(response.url(), (await response.body()).length);
  });
  const { product } = await login({ role: 'issuer' });
  await page.goto('/');
  await page.getByRole('link', { name: product.name, exact: true }).click();
  const cover = slot(page, 'Cover image');
  const photo = await cameraPhotoJpeg('site-photo.jpg');
  await cover.getByTestId('input-cover_image').setInputFiles(photo);
  await page
    .getByRole('dialog', { name: 'Crop site-photo.jpg' })
    .getByRole('button', { name: cropAndSend })
    .click();
  const preview = card(cover, 'site-photo.jpg').getByRole('img', { name: 'Preview of site-photo.jpg' });
  await expect(preview).toBeVisible();
  await expect(preview).toHaveJSProperty('complete', true);

  // And again from a fresh load of the page, with every other preview on it.
  await page.reload();
  await expect(preview).toBeVisible();
  await settled(page);
  const previewUrl = (await preview.getAttribute('src'))!;
  await expect.poll(() => delivered.has(previewUrl)).toBe(true);
  for (const url of delivered.keys())
    expect(new URL(url).searchParams.get('variant'), url).not.toBe('original');
  const ratio = delivered.get(previewUrl)! / photo.buffer.length;
  console.log(
    `W3: preview ${delivered.get(previewUrl)} bytes ÷ original ${photo.buffer.length} bytes = ${ratio.toFixed(4)}`,
  );
  expect(ratio).toBeLessThanOrEqual(0.02);
});

test('a file of the wrong kind or over the limit is refused before any byte is sent', async ({
  page,
  login,
}) => {
  // Handing the browser a 26 MB file crosses the DevTools protocol as base64: slow on a busy machine.
  test.setTimeout(240_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  const uploads = watchUploads(page);
  const logo = slot(page, 'Logo');
  await logo.getByTestId('input-logo').setInputFiles(csvFile('figures.csv'));
  await expect(logo.getByRole('alert')).toHaveText(
    'figures.csv is not accepted here: upload a JPEG, PNG, WebP, GIF or AVIF image.',
  );
  await logo.getByTestId('input-logo').setInputFiles(oversizedPng(26, 'huge.png'));
  await expect(logo.getByRole('alert')).toHaveText('huge.png is 26 MB; the limit for a logo is 25 MB.');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(uploads).toEqual([]);
});

test('a failed upload is retried without making a second asset', async ({ page, login }) => {
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  // The first attempt reaches the platform, but its answer is lost on the way back.
  let lost = false;
  await page.route(`${platformUrl}/v2/core/assets`, async (route) => {
    if (route.request().method() !== 'POST' || lost) return route.continue();
    lost = true;
    await route.fetch();
    await route.abort('connectionreset');
  });
  const teaser = slot(page, 'One-page teaser');
  await teaser
    .getByTestId('input-one_page_teaser')
    .setInputFiles(await multiPagePdf('teaser.pdf', ['Teaser']));
  await expect(teaser.getByText('Failed', { exact: true })).toBeVisible();
  await teaser.getByRole('button', { name: 'Retry teaser.pdf' }).click();
  await expect(card(teaser, 'teaser.pdf')).toBeVisible();
  await expect(teaser.getByRole('list', { name: 'Uploads' })).toHaveCount(0);
  await page.reload();
  await expect(card(teaser, 'teaser.pdf')).toHaveCount(1);
});

test('the investor uploads identity documents privately; the admin reviews and approves them', async ({
  page,
  browser,
  login,
}) => {
  test.setTimeout(90_000);
  const investor = await login({ role: 'investor', name: 'Ivy Licence' });
  const accreditation = investor.accreditation!.name;
  await page.goto('/');
  await page.getByRole('link', { name: accreditation }).click();

  const licence = slot(page, "Driver's licence");
  await licence.getByRole('radio', { name: 'One photo shows both sides' }).check();
  await licence
    .getByTestId('input-drivers_license')
    .setInputFiles(await documentPhoto('licence.jpg', { rotated: true }));
  await page
    .getByRole('dialog', { name: 'Crop licence.jpg' })
    .getByRole('button', { name: 'Crop and upload' })
    .click();
  await expect(card(licence, 'licence.jpg').getByText('Private', { exact: true }).first()).toBeVisible();
  // No switch where "private" would change nothing: only the investor and admins see these anyway.
  await expect(
    card(licence, 'licence.jpg').getByText('Only you and the platform’s admins can see this file.'),
  ).toBeVisible();
  await expect(card(licence, 'licence.jpg').getByRole('switch')).toHaveCount(0);

  const letter = slot(page, 'Letter of accreditation');
  await letter
    .getByTestId('input-letter_of_accreditation')
    .setInputFiles(await multiPagePdf('letter.pdf', ['Accredited', 'Signed']));
  await expect(card(letter, 'letter.pdf').getByText('Private', { exact: true }).first()).toBeVisible();
  // Everything it needs is there: the investor sends it for review.
  await page.getByRole('button', { name: 'Send for review' }).click();
  await expect(page.getByRole('heading', { name: 'Review: Waiting for review' })).toBeVisible();

  // Another investor sees none of it: the accreditation does not open for them.
  const strangerContext = await browser.newContext();
  await login({ role: 'investor', context: strangerContext });
  const strangerPage = await strangerContext.newPage();
  await strangerPage.goto(new URL(page.url()).pathname);
  await expect(
    strangerPage.getByRole('heading', { name: 'This accreditation could not be opened' }),
  ).toBeVisible();
  await expect(strangerPage.getByText('licence.jpg')).toHaveCount(0);
  await strangerContext.close();

  // The admin finds both documents, private as they are, and approves.
  const adminContext = await browser.newContext();
  await login({ role: 'admin', context: adminContext });
  const admin = await adminContext.newPage();
  await admin.goto('/');
  await admin.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Review queue' }).click();
  const item = admin
    .getByRole('listitem')
    .filter({ has: admin.getByRole('heading', { name: accreditation }) });
  await expect(item.getByRole('button', { name: 'Open licence.jpg' })).toBeVisible();
  await expect(item.getByRole('button', { name: 'Open letter.pdf' })).toBeVisible();
  await expect(item.getByRole('img', { name: 'Preview of licence.jpg' })).toBeVisible();
  await expect(item.getByText('Only the owner and the platform’s admins can see this file.')).toHaveCount(2);
  await item.getByLabel('Note to the investor (optional)').fill('Documents check out.');
  await item.getByRole('button', { name: 'Approve' }).click();
  // The decision leaves the queue at once, with a confirmation (its undo is tested in review-loop.spec.ts).
  await expect(item).toHaveCount(0);
  await expect(admin.getByText(`Approved ${accreditation}.`)).toBeVisible();
  // Sent once the undo window has passed.
  await expect(admin.getByText(`Approved ${accreditation}.`)).toHaveCount(0, {
    timeout: 30_000,
  });
  await adminContext.close();
});

test('a CSV goes up as-is and downloads byte for byte; a pasted image opens the crop dialog', async ({
  page,
  login,
}) => {
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  const financials = slot(page, 'Financial document');
  const figures = csvFile('figures-2025.csv');
  await financials.getByTestId('input-financial_document').setInputFiles(figures);
  const figuresCard = card(financials, 'figures-2025.csv');
  await expect(figuresCard.getByText('CSV', { exact: true })).toBeVisible();
  // Open shows it in the viewer from a signed URL asked for at the click; the bytes behind it are the
  // uploaded ones.
  const [signed] = await Promise.all([
    page.waitForResponse((r) => r.url().includes('/download_url')),
    figuresCard.getByRole('button', { name: 'Open figures-2025.csv' }).click(),
  ]);
  const { url } = (await signed.json()) as { url: string };
  const bytes = await (await page.request.get(url)).body();
  expect(bytes.equals(figures.buffer)).toBe(true);
  await expect(
    page.getByRole('dialog', { name: 'figures-2025.csv' }).getByRole('cell', { name: '1500' }),
  ).toBeVisible();
  await page.keyboard.press('Escape');

  // Paste, as from a screenshot tool: the focused "Choose a file" button's area takes it.
  await page.goto(`/team-members/${product.team_member.id}`);
  const avatar = slot(page, 'Team member avatar');
  const photo = await quadrantsPng('pasted.png');
  await avatar.getByRole('button', { name: chooserName('Team member avatar') }).focus();
  await page.evaluate(
    ({ base64 }) => {
      const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], 'pasted.png', { type: 'image/png' }));
      document.activeElement!.dispatchEvent(
        new ClipboardEvent('paste', { clipboardData: data, bubbles: true }),
      );
    },
    { base64: photo.buffer.toString('base64') },
  );
  const dialog = page.getByRole('dialog', { name: 'Crop pasted.png' });
  await expect(dialog).toBeVisible();
  // Avatars are square with a round mask: no shapes to choose. Escape closes without uploading.
  await expect(dialog.getByRole('radio')).toHaveCount(0);
  await page.keyboard.press('Escape');
  await expect(dialog).toBeHidden();
  await expect(avatar.getByText('No team member avatar yet')).toBeVisible();
});

test('a rename the platform refuses is rolled back with a message', async ({ page, login }) => {
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  const extra = slot(page, 'Additional document');
  await extra
    .getByTestId('input-additional_document')
    .setInputFiles(await multiPagePdf('terms.pdf', ['Terms']));
  await expect(card(extra, 'terms.pdf')).toBeVisible();
  await page.route(`${platformUrl}/v2/core/assets/*`, (route) =>
    route.request().method() === 'PUT'
      ? route.fulfill({
          status: 503,
          contentType: 'application/problem+json',
          body: JSON.stringify({
            type: 'about:blank',
            title: 'Unavailable',
            status: 503,
            code: 'unavailable',
          }),
        })
      : route.continue(),
  );
  await card(extra, 'terms.pdf').getByRole('button', { name: 'Rename terms.pdf' }).click();
  await extra.getByLabel('New name for terms.pdf').fill('Final terms.pdf');
  await page.keyboard.press('Enter');
  await expect(card(extra, 'terms.pdf').getByRole('alert')).toHaveText(
    'The change was undone: The platform had a problem. Please try again in a moment.',
  );
  await expect(card(extra, 'Final terms.pdf')).toHaveCount(0);
});

test('P10: names with HTML or script in them show as text and run nothing', async ({
  page,
  login,
  browser,
}) => {
  const alerts: string[] = [];
  page.on('dialog', (dialog) => {
    alerts.push(dialog.message());
    void dialog.dismiss();
  });
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  const financials = slot(page, 'Financial document');
  const hostile = '"><img src=x onerror="window.pwned=1;alert(1)">.csv';
  await financials.getByTestId('input-financial_document').setInputFiles(csvFile(hostile));
  const hostileCard = card(financials, hostile);
  await expect(hostileCard.getByRole('paragraph').filter({ hasText: hostile })).toHaveText(hostile);

  const renamed = '<script>window.pwned=2;alert(2)</script><b>bold</b>';
  await hostileCard.getByRole('button', { name: `Rename ${hostile}` }).click();
  await financials.getByLabel(`New name for ${hostile}`).fill(renamed);
  await page.keyboard.press('Enter');
  const renamedCard = card(financials, renamed);
  await expect(renamedCard.getByRole('paragraph').filter({ hasText: renamed })).toHaveText(renamed);
  await renamedCard.getByRole('button', { name: `Delete ${renamed}` }).click();
  await expect(financials.getByText(`Deleted ${renamed}.`)).toBeVisible();
  await financials.getByRole('button', { name: `Undo deleting ${renamed}` }).click();
  await expect(renamedCard).toBeVisible();

  // Another reader of the same offering (an investor) sees the name as text too, after a fresh load.
  const investorContext = await browser.newContext();
  await login({ role: 'investor', context: investorContext });
  const investor = await investorContext.newPage();
  investor.on('dialog', (dialog) => {
    alerts.push(dialog.message());
    void dialog.dismiss();
  });
  await investor.goto(`/investments/${product.investment.id}`);
  await expect(investor.getByRole('paragraph').filter({ hasText: renamed })).toHaveText(renamed);

  for (const reader of [page, investor]) {
    expect(await reader.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    await expect(reader.locator('img[src="x"], b:text-is("bold")')).toHaveCount(0);
  }
  expect(alerts).toEqual([]);
  await investorContext.close();
});

test('a failed upload keeps its Retry through a reload: the file is kept in the browser, not chosen again', async ({
  page,
  login,
}) => {
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  // The platform cannot be reached for this upload.
  await page.route(`${platformUrl}/v2/core/assets`, (route) =>
    route.request().method() === 'POST' ? route.abort('connectionrefused') : route.continue(),
  );
  const plans = slot(page, 'Business plan');
  await plans.getByTestId('input-business_plan').setInputFiles(csvFile('kept-plan.csv'));
  await expect(plans.getByText('Failed', { exact: true })).toBeVisible();

  // The page ends (as it does for a sign-in) and comes back: the upload is still there to retry.
  await page.unroute(`${platformUrl}/v2/core/assets`);
  await page.reload();
  const again = slot(page, 'Business plan');
  await expect(again.getByText('Failed', { exact: true })).toBeVisible();
  await again.getByRole('button', { name: 'Retry kept-plan.csv' }).click();
  await expect(card(again, 'kept-plan.csv')).toBeVisible();
  // Sent once, and no longer kept: another reload shows the file and no upload row.
  await page.reload();
  await expect(card(slot(page, 'Business plan'), 'kept-plan.csv')).toHaveCount(1);
  await expect(slot(page, 'Business plan').getByRole('list', { name: 'Uploads' })).toHaveCount(0);
});
