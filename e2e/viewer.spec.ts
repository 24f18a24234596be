import type { Locator, Page } from '@playwright/test';
import { expect, test } from './support/app';
import { csvFile, multiPagePdf, quadrantsPng } from './support/files';
import { card, slot } from './support/page-parts';

/**
 * The viewer (issue 28, point 4): a picture opens whole inside the dialog at any window size and
 * turns; Previous/Next step through the entity's files; Download saves the original under its safe
 * name; a PDF says which page is being read; a CSV file is a table. Files go to an investment's
 * "Additional document" slot, which takes images, PDFs and CSV files without a crop.
 */

const documents = (page: Page) => slot(page, 'Additional document');

async function upload(page: Page, files: Awaited<ReturnType<typeof quadrantsPng>>[]) {
  await documents(page).getByTestId('input-additional_document').setInputFiles(files);
  for (const file of files)
    await expect(
      card(documents(page), file.name).getByRole('button', { name: `Open ${file.name}` }),
    ).toBeVisible({ timeout: 60_000 });
}

type Box = { x: number; y: number; width: number; height: number };

/** How a picture sits in the viewer's stage: inside it (to a pixel), and filling it one way. */
async function fitOf(viewer: Locator, name: string) {
  const picture = viewer.getByRole('img', { name, exact: true });
  await expect(picture).toBeVisible();
  await expect
    .poll(() => picture.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0))
    .toBe(true);
  const stage = (await viewer.getByRole('group', { name: /^Picture/ }).boundingBox())!;
  const shown = (await picture.boundingBox())!;
  const dialog = (await viewer.boundingBox())!;
  return { stage, shown, dialog };
}

const inside = (inner: Box, outer: Box) =>
  inner.x >= outer.x - 1 &&
  inner.y >= outer.y - 1 &&
  inner.x + inner.width <= outer.x + outer.width + 1 &&
  inner.y + inner.height <= outer.y + outer.height + 1;

const fillsOneWay = (inner: Box, outer: Box) =>
  Math.abs(inner.width - (outer.width - 2)) <= 3 || Math.abs(inner.height - (outer.height - 2)) <= 3;

test('a picture opens whole at 1280×860 and 390×844, 4:3, 3:4 and square, and turns a quarter', async ({
  page,
  login,
}) => {
  test.setTimeout(120_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  const pictures = [
    await quadrantsPng('wide-4x3.png', 1600, 1200),
    await quadrantsPng('tall-3x4.png', 1200, 1600),
    await quadrantsPng('square.png', 1000, 1000),
  ];
  await upload(page, pictures);

  for (const viewport of [
    { width: 1280, height: 860 },
    { width: 390, height: 844 },
  ]) {
    await page.setViewportSize(viewport);
    for (const { name } of pictures) {
      await card(documents(page), name)
        .getByRole('button', { name: `Open ${name}` })
        .click();
      const viewer = page.getByRole('dialog', { name });
      const { stage, shown, dialog } = await fitOf(viewer, name);
      const where = `${name} at ${viewport.width}×${viewport.height}`;
      // The whole picture is on screen: inside the stage, inside the dialog, inside the window.
      expect(inside(shown, stage), where).toBe(true);
      expect(inside(shown, dialog), where).toBe(true);
      expect(inside(dialog, { x: 0, y: 0, ...viewport }), where).toBe(true);
      expect(fillsOneWay(shown, stage), where).toBe(true);
      const [w, h] = name.startsWith('wide') ? [4, 3] : name.startsWith('tall') ? [3, 4] : [1, 1];
      expect(shown.width / shown.height, where).toBeCloseTo(w / h, 1);
      // Shown from a rendition sized to the screen (at most twice the dialog's width), not the original.
      const src = new URL((await viewer.getByRole('img', { name, exact: true }).getAttribute('src'))!);
      expect(src.searchParams.get('variant'), where).toBe('preview');
      expect(Number(src.searchParams.get('width')), where).toBeLessThanOrEqual(2 * dialog.width);
      await page.keyboard.press('Escape');
      await expect(viewer).toBeHidden();
    }
  }

  // Turned a quarter, a 4:3 picture stands 3:4, still whole.
  await page.setViewportSize({ width: 1280, height: 860 });
  await card(documents(page), 'wide-4x3.png').getByRole('button', { name: 'Open wide-4x3.png' }).click();
  const viewer = page.getByRole('dialog', { name: 'wide-4x3.png' });
  await fitOf(viewer, 'wide-4x3.png');
  await viewer.getByRole('button', { name: /^Rotate/ }).click();
  await expect
    .poll(async () => {
      const { shown } = await fitOf(viewer, 'wide-4x3.png');
      return Math.round((shown.width / shown.height) * 100) / 100;
    })
    .toBeCloseTo(3 / 4, 1);
  const turned = await fitOf(viewer, 'wide-4x3.png');
  expect(inside(turned.shown, turned.stage)).toBe(true);
  expect(fillsOneWay(turned.shown, turned.stage)).toBe(true);
});

test('the keys work from the moment it opens: + zooms, 0 fits, → and ← step to the next file and back; 100 % is the file’s pixels', async ({
  page,
  login,
}) => {
  test.setTimeout(120_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  await upload(page, [await quadrantsPng('first.png', 800, 600), await quadrantsPng('second.png', 600, 800)]);
  // The viewer steps through all of the investment's files, in the order of their cards on the page.
  const names = await page.locator('.asset-card .asset-name').allTextContents();
  const at = names.indexOf('first.png');
  expect(at).toBeGreaterThanOrEqual(0);

  await card(documents(page), 'first.png').getByRole('button', { name: 'Open first.png' }).click();
  let viewer = page.getByRole('dialog', { name: 'first.png' });
  const fitted = (await fitOf(viewer, 'first.png')).shown;
  await expect(viewer.getByText(`${at + 1} of ${names.length}`)).toBeVisible();
  // No Tab first: the picture has focus.
  await page.keyboard.press('+');
  await expect
    .poll(async () => (await viewer.getByRole('img', { name: 'first.png' }).boundingBox())!.width)
    .toBeGreaterThan(fitted.width * 1.2);
  await page.keyboard.press('0');
  await expect
    .poll(async () => Math.round((await viewer.getByRole('img', { name: 'first.png' }).boundingBox())!.width))
    .toBe(Math.round(fitted.width));
  // 100 %: one pixel of the file to a pixel of the page (800 wide), the original over the rendition.
  await viewer.getByRole('button', { name: /^100 %/ }).click();
  await expect
    .poll(async () => Math.round((await viewer.getByRole('img', { name: 'first.png' }).boundingBox())!.width))
    .toBe(800);
  await expect(viewer.getByText('100 %', { exact: true })).toBeVisible();
  await page.keyboard.press('0');

  // → opens the file after it in the page's order, ← comes back.
  const next = names[at + 1];
  if (next) {
    await page.keyboard.press('ArrowRight');
    viewer = page.getByRole('dialog', { name: next });
    await expect(viewer.getByText(`${at + 2} of ${names.length}`)).toBeVisible();
    await page.keyboard.press('ArrowLeft');
    viewer = page.getByRole('dialog', { name: 'first.png' });
    await expect(viewer.getByText(`${at + 1} of ${names.length}`)).toBeVisible();
  }
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog')).toHaveCount(0);
  await expect(
    card(documents(page), 'first.png').getByRole('button', { name: 'Open first.png' }),
  ).toBeFocused();
});

test('Download saves the original under its safe name; a text file called fake.pdf is Text, and saved as fake.txt', async ({
  page,
  login,
}) => {
  test.setTimeout(120_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  const photo = await quadrantsPng('saved.png', 400, 300);
  const fake = {
    name: 'fake.pdf',
    mimeType: 'application/pdf',
    buffer: Buffer.from('plain words, not a PDF\n'),
  };
  await upload(page, [photo, fake]);
  await expect(card(documents(page), 'fake.pdf').getByText('Text', { exact: true })).toBeVisible();

  await card(documents(page), 'saved.png').getByRole('button', { name: 'Open saved.png' }).click();
  let viewer = page.getByRole('dialog', { name: 'saved.png' });
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    viewer.getByRole('button', { name: 'Download saved.png' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe('saved.png');
  const { readFile } = await import('node:fs/promises');
  expect((await readFile((await download.path())!)).equals(photo.buffer)).toBe(true);
  // The viewer is still there: saving did not leave the page.
  await expect(viewer).toBeVisible();
  await page.keyboard.press('Escape');

  await card(documents(page), 'fake.pdf').getByRole('button', { name: 'Open fake.pdf' }).click();
  viewer = page.getByRole('dialog', { name: 'fake.pdf' });
  await expect(viewer.getByText('plain words, not a PDF')).toBeVisible();
  const [text] = await Promise.all([
    page.waitForEvent('download'),
    viewer.getByRole('button', { name: 'Download fake.pdf' }).click(),
  ]);
  expect(text.suggestedFilename()).toBe('fake.txt');
  expect((await readFile((await text.path())!)).equals(fake.buffer)).toBe(true);
});

test('a PDF says which page is being read as it scrolls, goes to a page, and a CSV file opens as a table', async ({
  page,
  login,
}) => {
  test.setTimeout(120_000);
  const { product } = await login({ role: 'issuer' });
  await page.goto(`/investments/${product.investment.id}`);
  const deck = await multiPagePdf(
    'twelve.pdf',
    Array.from({ length: 12 }, (_, i) => `Page ${i + 1}`),
  );
  await upload(page, [deck, csvFile('numbers.csv')]);

  await card(documents(page), 'twelve.pdf').getByRole('button', { name: 'Open twelve.pdf' }).click();
  const viewer = page.getByRole('dialog', { name: 'twelve.pdf' });
  await expect(viewer.getByRole('img', { name: 'Page 1 of 12' })).toHaveAttribute('aria-busy', 'false');
  await expect(viewer.getByText('Page 1 of 12', { exact: true })).toBeVisible();
  const pages = viewer.getByRole('region', { name: /^Pages of twelve\.pdf/ });
  // Keys at once, no Tab: the pages have focus.
  await page.keyboard.press('PageDown');
  await expect(viewer.getByText('Page 2 of 12', { exact: true })).toBeVisible();
  await page.keyboard.press('End');
  await expect(viewer.getByText('Page 12 of 12', { exact: true })).toBeVisible();
  await page.keyboard.press('Home');
  await expect(viewer.getByText('Page 1 of 12', { exact: true })).toBeVisible();
  // Scrolling by hand moves the number too.
  await pages.evaluate((element) => (element.scrollTop = element.scrollHeight * 0.5));
  await expect(viewer.getByText(/^Page (6|7) of 12$/)).toBeVisible();
  await viewer.getByLabel('Go to page').fill('3');
  await page.keyboard.press('Enter');
  await expect(viewer.getByText('Page 3 of 12', { exact: true })).toBeVisible();
  await expect(viewer.getByRole('img', { name: 'Page 3 of 12' })).toHaveAttribute('aria-busy', 'false');
  // Zoom: 100 % is the page's printed size (612 pt = 816 CSS px, its frame's border within), narrower
  // than fitted here.
  const pageWidth = async () =>
    Math.round((await viewer.getByRole('img', { name: 'Page 3 of 12' }).boundingBox())!.width);
  const fittedWidth = await pageWidth();
  await viewer.getByRole('button', { name: /^100 %/ }).click();
  await expect.poll(pageWidth).toBeLessThan(fittedWidth);
  expect(Math.abs((await pageWidth()) - 816)).toBeLessThanOrEqual(2);
  await page.keyboard.press('Escape');

  await card(documents(page), 'numbers.csv').getByRole('button', { name: 'Open numbers.csv' }).click();
  const table = page.getByRole('dialog', { name: 'numbers.csv' }).getByRole('table', { name: 'numbers.csv' });
  await expect(table.getByRole('columnheader')).toHaveText(['year', 'revenue']);
  await expect(table.getByRole('row')).toHaveCount(3);
  await expect(table.getByRole('cell', { name: '1500' })).toBeVisible();
});
