import type { Page } from '@playwright/test';
import { expect, storedAccessToken, test } from './support/app';
import { csvFile, documentPhoto, multiPagePdf, quadrantsPng, type TestFile } from './support/files';
import {
  card,
  chooserName,
  colourOf,
  cropAndSend,
  dropFiles,
  slot,
  throttleUploads,
} from './support/page-parts';
import { platformUrl } from './support/urls';

/**
 * The asset manager as people use it every day (issue 13): focus that stays where the person is,
 * deletes that can be taken back, several images at once, a viewer inside the app, uploads that say
 * how long they will take, and refusals in plain words.
 */

const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement as HTMLElement | null;
    return element
      ? `${element.tagName.toLowerCase()}: ${element.getAttribute('aria-label') ?? element.textContent?.trim()}`
      : '';
  });

/** Picks files through the slot's own chooser button, with the keyboard, as a person would. */
async function chooseWithKeyboard(page: Page, slotLabel: string, files: TestFile[]) {
  const button = slot(page, slotLabel).getByRole('button', { name: chooserName(slotLabel) });
  await button.focus();
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.keyboard.press('Enter')]);
  await chooser.setFiles(files);
}

/** The platform's own view of a file, with the app's token: its status (404 once deleted). */
async function platformStatus(page: Page, id: string) {
  const token = await storedAccessToken(page);
  return (
    await page.request.get(`${platformUrl}/v2/core/assets/${id}`, {
      headers: { authorization: `Bearer ${token}` },
    })
  ).status();
}

const fileIdOf = async (page: Page, name: string, slotLabel: string) =>
  ((await card(slot(page, slotLabel), name).getAttribute('id')) ?? '').replace('file-', '');

test('focus returns to what opened each dialog and in-place edit, and moves on sensibly after a delete', async ({
  page,
  login,
}) => {
  test.setTimeout(120_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  const logo = slot(page, 'Logo');

  // The crop dialog, closed with Escape: back on "Choose a file".
  await chooseWithKeyboard(page, 'Logo', [await quadrantsPng('first.png')]);
  await expect(page.getByRole('dialog', { name: 'Crop first.png' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(await focused(page)).toMatch(/^button: (Choose a file for Logo|Replace logo)$/);

  // … and saved: back there too, and the file uploads.
  await chooseWithKeyboard(page, 'Logo', [await quadrantsPng('mark.png')]);
  const send = page.getByRole('dialog', { name: 'Crop mark.png' }).getByRole('button', { name: cropAndSend });
  // It waits for the image to load (a press, unlike a click, would not wait for it to be enabled).
  await expect(send).toBeEnabled();
  await send.press('Enter');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  expect(await focused(page)).toMatch(/^button: (Choose a file for Logo|Replace logo)$/);
  await expect(card(logo, 'mark.png')).toBeVisible();

  // Rename with the keyboard: back on the card's Rename button, which names the new name.
  await card(logo, 'mark.png').getByRole('button', { name: 'Rename mark.png' }).focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.type('Harbor mark.png');
  await page.keyboard.press('Enter');
  await expect(card(logo, 'Harbor mark.png')).toBeVisible();
  await expect.poll(() => focused(page)).toBe('button: Rename Harbor mark.png');

  // Edit crop, then Escape: back on "Edit crop".
  await card(logo, 'Harbor mark.png')
    .getByRole('button', { name: 'Edit crop of Harbor mark.png' })
    .press('Enter');
  await expect(page.getByRole('dialog', { name: 'Crop Harbor mark.png' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect.poll(() => focused(page)).toBe('button: Edit crop of Harbor mark.png');

  // The viewer, then Escape: back on "Open".
  await card(logo, 'Harbor mark.png').getByRole('button', { name: 'Open Harbor mark.png' }).press('Enter');
  await expect(page.getByRole('dialog', { name: 'Harbor mark.png' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect.poll(() => focused(page)).toBe('button: Open Harbor mark.png');

  // Delete the only file: focus goes to the slot's upload control, not into the notice (which would
  // hold the undo window open); its Undo is the next stop, and puts the file back with focus on it.
  await card(logo, 'Harbor mark.png').getByRole('button', { name: 'Delete Harbor mark.png' }).press('Enter');
  await expect.poll(() => focused(page)).toBe('button: Choose a file for Logo');
  await page.keyboard.press('Tab');
  await expect.poll(() => focused(page)).toBe('button: Undo deleting Harbor mark.png');
  await page.keyboard.press('Enter');
  await expect(card(logo, 'Harbor mark.png')).toBeVisible();
  await expect.poll(() => focused(page)).toBe('button: Open Harbor mark.png');

  // With two files (a slot that holds several), deleting one moves focus to the next one.
  const charters = slot(page, 'Charter document');
  await charters
    .getByTestId('input-charter_document')
    .setInputFiles([await multiPagePdf('a.pdf', ['A']), await multiPagePdf('b.pdf', ['B'])]);
  // Uploads take a while on a busy machine.
  await expect(card(charters, 'a.pdf')).toBeVisible({ timeout: 60_000 });
  await expect(card(charters, 'b.pdf')).toBeVisible({ timeout: 60_000 });
  await card(charters, 'a.pdf').getByRole('button', { name: 'Delete a.pdf' }).press('Enter');
  await expect.poll(() => focused(page)).toBe('button: Open b.pdf');
  await charters.getByRole('button', { name: 'Undo deleting a.pdf' }).click();
});

test('several images at once: "1 of 3", and "Skip crop for the rest" sends the others whole', async ({
  page,
  login,
}) => {
  // A slot that holds several images: an investor's utility bills.
  const investor = await login({ role: 'investor', name: 'Bill Payer' });
  await page.goto('/');
  await page.getByRole('link', { name: investor.accreditation!.name }).click();
  const bills = slot(page, 'Utility bill');
  await bills.getByTestId('input-utility_bill').setInputFiles([
    // Bills the photo check (issue 31) has nothing to say about: straight to the crop dialog.
    await documentPhoto('one.png'),
    await documentPhoto('two.png'),
    await documentPhoto('three.png'),
  ]);
  const first = page.getByRole('dialog', { name: 'Crop one.png' });
  await expect(first.getByText('Image 1 of 3')).toBeVisible();
  await first.getByRole('button', { name: 'Crop and upload' }).click();
  const second = page.getByRole('dialog', { name: 'Crop two.png' });
  await expect(second.getByText('Image 2 of 3')).toBeVisible();
  await second.getByRole('button', { name: 'Skip crop for the rest' }).click();
  await expect(page.getByRole('dialog')).toHaveCount(0);
  for (const name of ['one.png', 'two.png', 'three.png']) await expect(card(bills, name)).toBeVisible();
  // Only the first has a crop to edit back to; the others went up whole (their previews are whole).
  const two = card(bills, 'two.png').getByRole('img', { name: 'Preview of two.png' });
  expect(new URL((await two.getAttribute('src'))!).searchParams.get('variant')).toBe('preview');
});

test('the viewer shows an image with its crop outlined and zooms it; a PDF page by page', async ({
  page,
  login,
}) => {
  test.setTimeout(90_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);

  const cover = slot(page, 'Cover image');
  await cover.getByTestId('input-cover_image').setInputFiles(await quadrantsPng('harbor.png', 800, 600));
  await page
    .getByRole('dialog', { name: 'Crop harbor.png' })
    .getByRole('button', { name: cropAndSend })
    .click();
  await card(cover, 'harbor.png').getByRole('button', { name: 'Open harbor.png' }).click();
  const viewer = page.getByRole('dialog', { name: 'harbor.png' });
  const picture = viewer.getByRole('img', { name: 'harbor.png' });
  await expect(picture).toBeVisible();
  await expect(viewer.locator('.crop-outline')).toBeVisible();
  const before = (await picture.boundingBox())!.width;
  const fitted = await viewer.locator('.zoom-level').innerText();
  await viewer.getByRole('button', { name: 'Zoom in' }).click();
  await viewer.getByRole('button', { name: 'Zoom in' }).click();
  await expect.poll(async () => (await picture.boundingBox())!.width).toBeGreaterThan(before * 1.4);
  await expect(viewer.locator('.zoom-level')).not.toHaveText(fitted);
  // The keyboard fits it again (0): its keys work wherever focus is in the view.
  await page.keyboard.press('0');
  await expect(viewer.locator('.zoom-level')).toHaveText(fitted);
  await expect.poll(async () => Math.round((await picture.boundingBox())!.width)).toBe(Math.round(before));
  await viewer.getByRole('button', { name: 'Close' }).click();

  const decks = slot(page, 'Pitch deck');
  await decks
    .getByTestId('input-pitch_deck')
    .setInputFiles(await multiPagePdf('story.pdf', ['First', 'Second', 'Third']));
  await card(decks, 'story.pdf').getByRole('button', { name: 'Open story.pdf' }).click();
  const pdf = page.getByRole('dialog', { name: 'story.pdf' });
  await expect(pdf.getByText('Page 1 of 3', { exact: true })).toBeVisible();
  const pageOne = pdf.getByRole('img', { name: 'Page 1 of 3' });
  await expect(pageOne).toHaveAttribute('aria-busy', 'false');
  // Drawn by pdf.js in the browser: white paper above, the red band the test PDF has below.
  const drawn = (x: number, y: number) =>
    pageOne.evaluate(
      (canvas: HTMLCanvasElement, [fx, fy]) => {
        const [r, g, b] = canvas
          .getContext('2d')!
          .getImageData(Math.floor(canvas.width * fx!), Math.floor(canvas.height * fy!), 1, 1).data;
        return { r: r!, g: g!, b: b! };
      },
      [x, y],
    );
  expect(Math.min(...Object.values(await drawn(0.5, 0.1)))).toBeGreaterThan(230);
  expect(colourOf(await drawn(0.5, 0.8))).toBe('red');
  await expect(pdf.getByRole('img', { name: 'Page 3 of 3' })).toBeAttached();
});

test('a PDF viewer loads while the person points at Open, the next PDF reuses it, and one that cannot load says so', async ({
  page,
  login,
}) => {
  test.setTimeout(120_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  const financials = slot(page, 'Financial document');
  await financials
    .getByTestId('input-financial_document')
    .setInputFiles([await multiPagePdf('2024.pdf', ['2024']), await multiPagePdf('2025.pdf', ['2025'])]);
  // PDFs take a while on a busy machine (the platform draws their thumbnails).
  await expect(card(financials, '2024.pdf')).toBeVisible({ timeout: 60_000 });
  await expect(card(financials, '2025.pdf')).toBeVisible({ timeout: 60_000 });
  const firstPage = (name: string) =>
    page.getByRole('dialog', { name }).getByRole('img', { name: 'Page 1 of 1' });

  // Pointing at Open already fetches pdf.js's worker, the largest part of showing a PDF.
  const workerScript = page.waitForRequest(/pdf\.worker[^/]*\.mjs$/);
  await card(financials, '2024.pdf').getByRole('button', { name: 'Open 2024.pdf' }).hover();
  await workerScript;
  await card(financials, '2024.pdf').getByRole('button', { name: 'Open 2024.pdf' }).click();
  await expect(firstPage('2024.pdf')).toHaveAttribute('aria-busy', 'false');
  await page.keyboard.press('Escape');
  // The next PDF is drawn by the same worker: nothing downloaded or started again.
  let workerFetches = 0;
  page.on('request', (request) => {
    if (/pdf\.worker[^/]*\.mjs$/.test(request.url())) workerFetches++;
  });
  await card(financials, '2025.pdf').getByRole('button', { name: 'Open 2025.pdf' }).click();
  await expect(firstPage('2025.pdf')).toHaveAttribute('aria-busy', 'false');
  expect(page.workers()).toHaveLength(1);
  expect(workerFetches).toBe(0);
  await page.keyboard.press('Escape');

  // A worker that cannot load (a network that drops it once) ends in words and a way out, not a
  // spinner; the next try starts a fresh worker and draws the page.
  let dropped = 0;
  await page.route(/pdf\.worker[^/]*\.mjs$/, (route) => (dropped++ ? route.continue() : route.abort()));
  await page.reload();
  await card(financials, '2024.pdf').getByRole('button', { name: 'Open 2024.pdf' }).click();
  const viewer = page.getByRole('dialog', { name: '2024.pdf' });
  await expect(viewer.getByText('This file cannot be shown here.', { exact: false })).toBeVisible({
    timeout: 30_000,
  });
  await expect(viewer.getByRole('link', { name: 'Open in a new tab (2024.pdf)' })).toBeVisible();
  await page.keyboard.press('Escape');
  await card(financials, '2025.pdf').getByRole('button', { name: 'Open 2025.pdf' }).click();
  await expect(firstPage('2025.pdf')).toHaveAttribute('aria-busy', 'false');
});

test("a PDF opens on its first page's thumbnail while pdf.js is still loading", async ({ page, login }) => {
  test.setTimeout(90_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  const decks = slot(page, 'Pitch deck');
  await decks
    .getByTestId('input-pitch_deck')
    .setInputFiles(await multiPagePdf('cover.pdf', ['Cover', 'Two']));
  // The card shows the thumbnail once the platform has made it.
  const preview = card(decks, 'cover.pdf').getByRole('img', { name: 'Preview of cover.pdf' });
  await expect(preview).toBeVisible({ timeout: 60_000 });
  const previewSrc = await preview.getAttribute('src');

  // pdf.js's worker held back, as a slow phone network would: the document cannot open meanwhile.
  let release: () => void = () => {};
  const released = new Promise<void>((resolve) => (release = resolve));
  await page.route(/pdf\.worker[^/]*\.mjs$/, async (route) => {
    await released;
    await route.continue();
  });
  await card(decks, 'cover.pdf').getByRole('button', { name: 'Open cover.pdf' }).click();
  const viewer = page.getByRole('dialog', { name: 'cover.pdf' });
  await expect(viewer.getByRole('status')).toHaveText('Opening cover.pdf…');
  // Page 1 is on screen already: the picture the card shows, loaded, as wide as the viewer; one sized
  // to the screen is laid over it as soon as it has loaded.
  const cover = viewer.locator('img.pdf-cover').first();
  await expect(cover).toHaveAttribute('src', previewSrc!);
  const sharper = viewer.locator('img.pdf-cover').nth(1);
  expect(Number(new URL((await sharper.getAttribute('src'))!).searchParams.get('width'))).toBeGreaterThan(
    320,
  );
  await expect
    .poll(() => cover.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
    .toBe(true);
  const coverBox = (await cover.boundingBox())!;
  const mainBox = (await viewer.locator('.viewer-main').boundingBox())!;
  expect(coverBox.width).toBeGreaterThan(mainBox.width * 0.9);

  // Once pdf.js is there it draws the page, and the picture gives way to the drawing.
  release();
  await expect(viewer.getByRole('img', { name: 'Page 1 of 2' })).toHaveAttribute('aria-busy', 'false');
  await expect(viewer.locator('img.pdf-cover')).toHaveCount(0);
});

test('an upload says how far it is, how fast and how long is left, then its row clears itself', async ({
  page,
  login,
}) => {
  test.setTimeout(90_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  // About 1 MB/s up: time to read the row while it sends.
  await throttleUploads(page, 1_000_000);
  const documents = slot(page, 'Additional document');
  const big = { name: 'appendix.csv', mimeType: 'text/csv', buffer: Buffer.alloc(6_000_000, 'a,b\n') };
  await documents.getByTestId('input-additional_document').setInputFiles(big);
  const row = documents
    .getByRole('list', { name: 'Uploads' })
    .getByRole('listitem')
    .filter({ hasText: 'appendix.csv' });
  await expect(row.getByText(/ of 6 MB · .*\/s · (about .* left|a few seconds left)/)).toBeVisible({
    timeout: 30_000,
  });
  await expect(card(documents, 'appendix.csv')).toBeVisible({ timeout: 60_000 });
  await expect(card(documents, 'appendix.csv').getByText(/6 MB · uploaded /)).toBeVisible();
  await expect(row).toHaveCount(0, { timeout: 30_000 });
});

test('a refusal from the platform is in plain words, with Retry only when trying again can work', async ({
  page,
  login,
}) => {
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  const decks = slot(page, 'Pitch deck');
  // Named .pdf, so the browser's check lets it go; the platform reads the bytes and refuses it.
  const program = {
    name: 'deck.pdf',
    mimeType: 'application/pdf',
    buffer: Buffer.from('MZ\x90\x00 not a PDF at all', 'latin1'),
  };
  await decks.getByTestId('input-pitch_deck').setInputFiles(program);
  const row = decks
    .getByRole('list', { name: 'Uploads' })
    .getByRole('listitem')
    .filter({ hasText: 'deck.pdf' });
  await expect(row.getByText('Failed')).toBeVisible();
  await expect(row.getByText(/deck\.pdf is not a kind of file this slot takes: upload a PDF/)).toBeVisible();
  await expect(row).not.toContainText('application/');
  await expect(row).not.toContainText('pitch_deck');
  await expect(row.getByRole('button', { name: /Retry/ })).toHaveCount(0);
  await expect(row.getByRole('button', { name: 'Dismiss deck.pdf' })).toBeVisible();
});

test('a delete waiting to be undone is sent when the page is closed', async ({ page, login, browser }) => {
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  const financials = slot(page, 'Financial document');
  await financials.getByTestId('input-financial_document').setInputFiles(csvFile('closing.csv'));
  await expect(card(financials, 'closing.csv')).toBeVisible();
  const id = await fileIdOf(page, 'closing.csv', 'Financial document');
  const token = await storedAccessToken(page);
  await card(financials, 'closing.csv').getByRole('button', { name: 'Delete closing.csv' }).click();
  await expect(financials.getByText('Deleted closing.csv.')).toBeVisible();
  await page.close({ runBeforeUnload: true });
  // Asked from elsewhere: the file is gone although its undo window had not passed.
  const other = await browser.newContext();
  await expect
    .poll(
      async () =>
        (
          await other.request.get(`${platformUrl}/v2/core/assets/${id}`, {
            headers: { authorization: `Bearer ${token}` },
          })
        ).status(),
      { timeout: 30_000 },
    )
    .toBe(404);
  await other.close();
});

test('the Private switch is there only where it changes who can see a file', async ({ page, login }) => {
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  const decks = slot(page, 'Pitch deck');
  await decks.getByTestId('input-pitch_deck').setInputFiles(await multiPagePdf('public-deck.pdf', ['Deck']));
  await expect(card(decks, 'public-deck.pdf').getByRole('switch', { name: 'Private' })).toBeVisible({
    timeout: 60_000,
  });
  expect(await platformStatus(page, await fileIdOf(page, 'public-deck.pdf', 'Pitch deck'))).toBe(200);

  await page.getByRole('link', { name: 'Home' }).click();
  await page.getByRole('region', { name: 'Profile' }).getByRole('link').click();
  const avatar = slot(page, 'Avatar');
  await avatar.getByTestId('input-avatar').setInputFiles(await quadrantsPng('me.png'));
  await page.getByRole('dialog').getByRole('button', { name: cropAndSend }).click();
  const mine = card(avatar, 'me.png');
  await expect(mine.getByText('Only you and the platform’s admins can see files here.')).toBeVisible();
  await expect(mine.getByRole('switch')).toHaveCount(0);
});

test('two tabs editing the same file: the later save is refused and explained, not laid over the other', async ({
  page,
  login,
  context,
}) => {
  test.setTimeout(90_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  const documents = slot(page, 'Additional document');
  await documents.getByTestId('input-additional_document').setInputFiles(csvFile('terms.csv'));
  await expect(card(documents, 'terms.csv')).toBeVisible();

  // The same page in a second tab of the same session, loaded before the first tab's change.
  const other = await context.newPage();
  await other.goto(`/investments/${product.investment.id}`);
  const otherCard = card(slot(other, 'Additional document'), 'terms.csv');
  await expect(otherCard).toBeVisible();

  await card(documents, 'terms.csv').getByRole('button', { name: 'Rename terms.csv' }).click();
  await documents.getByLabel('New name for terms.csv').fill('Terms, final.csv');
  await page.keyboard.press('Enter');
  await expect(card(documents, 'Terms, final.csv')).toBeVisible();

  // The stale tab's rename meets the platform's 412: said in words, the card shows the file as it
  // is now (no reload), and the rename can be applied to that version.
  const cardId = await otherCard.getAttribute('id');
  await otherCard.getByRole('button', { name: 'Rename terms.csv' }).click();
  await other.getByLabel('New name for terms.csv').fill('Terms, draft.csv');
  await other.keyboard.press('Enter');
  const otherDocuments = slot(other, 'Additional document');
  const names = other.locator(`#${cardId} .asset-name`);
  await expect(
    otherDocuments.getByText('Changed elsewhere — your rename to “Terms, draft.csv” was not saved.', {
      exact: false,
    }),
  ).toBeVisible();
  await expect(names).toHaveText(['Terms, final.csv']);
  await otherDocuments.getByRole('button', { name: 'Apply my rename again' }).click();
  await expect(names).toHaveText(['Terms, draft.csv']);
  // The first tab sees it when the person comes back to it.
  await page.bringToFront();
  await page.reload();
  await expect(card(documents, 'Terms, draft.csv')).toBeVisible();
  await other.close();
});

test('a replace can be taken back like a delete: Undo removes the new file and the old one stays in use', async ({
  page,
  login,
}) => {
  test.setTimeout(90_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  const decks = slot(page, 'Pitch deck');
  const inputOf = () => decks.getByTestId('input-pitch_deck');
  await inputOf().setInputFiles(await multiPagePdf('deck-before-undo.pdf', ['Before']));
  await expect(card(decks, 'deck-before-undo.pdf')).toBeVisible();
  const oldId = await fileIdOf(page, 'deck-before-undo.pdf', 'Pitch deck');

  await inputOf().setInputFiles(await multiPagePdf('deck-after-undo.pdf', ['After']));
  await expect(card(decks, 'deck-after-undo.pdf')).toBeVisible();
  const newId = await fileIdOf(page, 'deck-after-undo.pdf', 'Pitch deck');
  const notice = decks.getByText('Replaced deck-before-undo.pdf with deck-after-undo.pdf.');
  await expect(notice).toBeVisible();
  await decks.getByRole('button', { name: 'Undo replacing deck-before-undo.pdf' }).click();

  // The old deck is the one in use again; the new one is gone from the platform, the old one kept.
  await expect(card(decks, 'deck-before-undo.pdf')).toBeVisible();
  await expect(card(decks, 'deck-after-undo.pdf')).toHaveCount(0);
  await expect.poll(() => platformStatus(page, newId)).toBe(404);
  expect(await platformStatus(page, oldId)).toBe(200);
  await page.reload();
  await expect(card(slot(page, 'Pitch deck'), 'deck-before-undo.pdf')).toBeVisible();
});

test('a file dropped anywhere on a product page goes to the slot the person picks when several take it', async ({
  page,
  login,
}) => {
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/products/${product.id}`);
  await expect(slot(page, 'Charter document')).toBeVisible();
  // Dropped on the page's title, far from any slot.
  await dropFiles(page.getByRole('heading', { level: 1 }), [
    await multiPagePdf('dropped-charter.pdf', ['Charter']),
  ]);
  const ask = page.getByRole('dialog', { name: 'Where does dropped-charter.pdf go?' });
  await expect(ask).toBeVisible();
  // Only the slots that take a PDF; the logo and the cover take images alone.
  await expect(ask.getByRole('button')).toHaveText([
    'Pitch deck',
    'One-page teaser',
    'Business plan',
    'Charter document',
    'Cancel',
  ]);
  await ask.getByRole('button', { name: 'Charter document' }).click();
  await expect(card(slot(page, 'Charter document'), 'dropped-charter.pdf')).toBeVisible();

  // A file no slot takes is refused in words, and nothing is sent.
  await dropFiles(page.getByRole('heading', { level: 1 }), [
    { name: 'setup.exe', mimeType: 'application/x-msdownload', buffer: Buffer.from('MZ not really') },
  ]);
  await expect(
    page.getByRole('alert').filter({ hasText: 'setup.exe fits none of the slots of this product.' }),
  ).toBeVisible();
});
