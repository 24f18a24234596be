import type { Page } from '@playwright/test';
import { expect, signIn, storedAccessToken, test } from './support/app';
import { largePdf, multiPagePdf, quadrantsPng } from './support/files';
import { card, colourOf, cropAndSend, shownPixelOf, slot } from './support/page-parts';
import { specDefaultPassword, specPeople } from './support/spec-only-platform';
import { startSpecOnlyPair, type SpecOnlyPair } from './support/spec-only-pair';

/**
 * The web app against a platform written from platform-api.md alone (e2e/support/spec-only-platform.ts),
 * which has none of our extensions: the app must find out what is missing and still do every job,
 * never saying the person lacks access to what the platform simply does not offer (C1).
 */

const noAccessWords = /do not have access|do not have permission/i;

/** The platform's own record of a file, asked with the app's token (as another client would). */
async function platformFile(page: Page, pair: SpecOnlyPair, id: number) {
  const token = await storedAccessToken(page);
  const response = await page.request.get(`${pair.platformUrl}/v2/core/assets/${id}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return {
    status: response.status(),
    asset: response.ok() ? ((await response.json()) as { asset: Record<string, unknown> }).asset : null,
  };
}

/** The ids of the files the app creates, from the platform's answers. */
function watchCreates(page: Page) {
  const ids: number[] = [];
  page.on('response', async (response) => {
    if (
      response.request().method() === 'POST' &&
      new URL(response.url()).pathname === '/v2/core/assets' &&
      response.status() === 201
    ) {
      ids.push(((await response.json()) as { asset: { id: number } }).asset.id);
    }
  });
  return ids;
}

/** Crops the quadrant picture to its top-left (red) square with the keyboard, then uploads it. */
async function uploadRedSquareLogo(page: Page) {
  const logo = slot(page, 'Logo');
  await logo.getByTestId('input-logo').setInputFiles(await quadrantsPng('logo.png'));
  const crop = page.getByRole('dialog', { name: 'Crop logo.png' });
  await crop.getByRole('radio', { name: 'Square' }).check();
  await crop.getByRole('slider', { name: 'Zoom' }).fill('2');
  await crop.getByLabel('Crop frame').focus();
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowRight');
  for (let i = 0; i < 20; i++) await page.keyboard.press('ArrowDown');
  await crop.getByRole('button', { name: cropAndSend }).click();
  await expect(logo.getByText('1 file uploaded')).toBeVisible();
  return logo;
}

test.describe('a platform with nothing beyond the spec: no /me, no entity reads, 204 updates, CORS for Authorization and Content-Type only, no refresh, no revoke, no renditions', () => {
  let pair: SpecOnlyPair;
  test.beforeAll(async () => {
    pair = await startSpecOnlyPair();
  });
  test.afterAll(async () => {
    await pair.close();
  });

  test('the issuer opens a product by number, uploads a cropped logo, renames, hides, shows and deletes it, and signs out', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const created = watchCreates(page);
    await signIn(page, specPeople.issuer, specDefaultPassword, pair);

    // No list of what the person owns: the way in is by number (C1: no "no access" anywhere).
    await expect(page.getByRole('heading', { name: 'Open your files' })).toBeVisible();
    await page.getByLabel('What to open').selectOption('Product');
    await page.getByLabel('Number').fill('1');
    await page.getByRole('button', { name: 'Open' }).click();
    await expect(page.getByRole('heading', { name: 'Product number 1' })).toBeVisible();
    await expect(
      page.getByText(/This platform does not list the files already stored with this product/),
    ).toBeVisible();
    await expect(page.getByText(noAccessWords)).toHaveCount(0);

    // The crop travels in meta; the platform makes no renditions, so the browser draws the crop.
    const logo = await uploadRedSquareLogo(page);
    const logoCard = card(logo, 'logo.png');
    const preview = logoCard.getByRole('img', { name: 'Preview of logo.png' });
    await expect(preview).toBeVisible();
    expect(await preview.getAttribute('src')).not.toContain('variant');
    const frame = logoCard.locator('.cropped-image-frame');
    const shown = await shownPixelOf(frame, 0.5, 0.5);
    expect(colourOf(shown)).toBe('red');
    // Square, to the pixel the layout rounds to.
    expect(Math.abs(shown.width - shown.height)).toBeLessThanOrEqual(1);
    const logoId = created[0]!;
    const stored = await platformFile(page, pair, logoId);
    expect((stored.asset!.meta as { crop: unknown }).crop).toEqual(
      expect.objectContaining({
        x: expect.anything(),
        y: expect.anything(),
        width: expect.anything(),
        height: expect.anything(),
      }),
    );

    // Rename and privacy: the platform answers 204; the app reads the file back and keeps the change (C2).
    await logoCard.getByRole('button', { name: 'Rename logo.png' }).click();
    await logo.getByLabel('New name for logo.png').fill('Harbour logo.png');
    await page.keyboard.press('Enter');
    const renamed = card(logo, 'Harbour logo.png');
    await expect(renamed.getByRole('paragraph').filter({ hasText: /^Harbour logo\.png$/ })).toBeVisible();
    await renamed.getByRole('switch', { name: 'Private' }).check();
    await expect(renamed.getByText('Only you and the platform’s admins can see this file.')).toBeVisible();
    await expect(page.getByText('The change was undone')).toHaveCount(0);
    expect((await platformFile(page, pair, logoId)).asset).toMatchObject({
      name: 'Harbour logo.png',
      private: true,
    });

    // A reload reads the files uploaded from this browser back from the platform, as they are there.
    await page.reload();
    const again = card(slot(page, 'Logo'), 'Harbour logo.png');
    await expect(again.getByRole('switch', { name: 'Private' })).toBeChecked();
    await again.getByRole('switch', { name: 'Private' }).uncheck();
    await expect(again.getByText('Everyone signed in to the platform can see this file.')).toBeVisible();
    await expect.poll(async () => (await platformFile(page, pair, logoId)).asset?.private).toBe(false);

    // C4: the platform's CORS does not allow Idempotency-Key, so the app never sent it.
    const creates = pair.platform.requests.filter((r) => r.method === 'POST' && r.path === '/v2/core/assets');
    expect(creates.length).toBeGreaterThan(0);
    expect(creates.every((r) => r.headers['idempotency-key'] === undefined)).toBe(true);

    await again.getByRole('button', { name: 'Delete Harbour logo.png' }).click();
    await expect(card(slot(page, 'Logo'), 'Harbour logo.png')).toHaveCount(0);
    // The spec has no undelete: the app waits out its undo window before asking the platform.
    await expect
      .poll(async () => (await platformFile(page, pair, logoId)).status, { timeout: 30_000 })
      .toBe(404);

    // The product is remembered on the way in, for next time.
    await page.getByRole('link', { name: 'Home' }).click();
    await expect(page.getByRole('link', { name: 'Product 1' })).toBeVisible();

    // C5: signing out ends the app's session though the platform offers no revocation, and says so.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expect(page.getByText(/This platform does not let apps end its own sign-in/)).toBeVisible();
    expect(await storedAccessToken(page)).toBeNull();
  });

  test('C1: Offerings, on a platform that lists none, opens a product by its number', async ({ page }) => {
    await signIn(page, specPeople.investor, specDefaultPassword, pair);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Offerings' }).click();
    await expect(page.getByRole('heading', { level: 1, name: 'Offerings' })).toBeVisible();
    await expect(page.getByText(/^This platform does not list its offerings/)).toBeVisible();
    await expect(page.getByText(noAccessWords)).toHaveCount(0);
    await expect(page.getByLabel('What to open')).toHaveValue('Product');
    await page.getByLabel('Number').fill('1');
    await page.getByRole('button', { name: 'Open' }).click();
    await expect(page.getByRole('heading', { name: 'Product number 1' })).toBeVisible();
  });

  test('C3: an accreditation letter ends private, though the platform ignores private at create', async ({
    page,
  }) => {
    const created = watchCreates(page);
    await signIn(page, specPeople.investor, specDefaultPassword, pair);
    await page.goto(`${pair.webUrl}/accreditations/1`);
    const letters = slot(page, 'Letter of accreditation');
    await letters
      .getByTestId('input-letter_of_accreditation')
      .setInputFiles(await multiPagePdf('letter.pdf', ['Accredited']));
    const letter = card(letters, 'letter.pdf');
    await expect(letter.getByText('Private', { exact: true }).first()).toBeVisible();
    await expect(letter.getByText(/Visible to others/)).toHaveCount(0);
    // The platform's own record says private, set by the spec's own update right after the create.
    expect((await platformFile(page, pair, created[0]!)).asset).toMatchObject({ private: true });
    const puts = pair.platform.requests.filter(
      (r) => r.method === 'PUT' && r.path === `/v2/core/assets/${created[0]}`,
    );
    expect(puts).toHaveLength(1);
    // No thumbnails on this platform: a PDF shows its type.
    await expect(letter.getByText('PDF', { exact: true })).toBeVisible();
  });

  test('a session that ends while a new name is being typed keeps the page and the typing through a new sign-in', async ({
    browser,
  }) => {
    test.setTimeout(120_000);
    // Access tokens that live an hour and cannot be renewed (no refresh grant on this platform), on a
    // clock the test moves forward when the hour is to have passed: however long each step takes.
    let later = 0;
    const shortLived = await startSpecOnlyPair({
      accessTokenTtlSeconds: 3600,
      clock: () => Date.now() + later,
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await signIn(page, specPeople.issuer, specDefaultPassword, shortLived);
      await page.goto(`${shortLived.webUrl}/products/2`);
      const decks = slot(page, 'Pitch deck');
      await decks.getByTestId('input-pitch_deck').setInputFiles(await multiPagePdf('deck.pdf', ['Cider']));
      const deck = card(decks, 'deck.pdf');
      await expect(deck).toBeVisible();
      await deck.getByRole('button', { name: 'Rename deck.pdf' }).click();
      await decks.getByLabel('New name for deck.pdf').fill('Cider deck 2026.pdf');

      // The token expires while the person types; their next change meets a 401 that cannot be renewed.
      later = 3601 * 1000;
      await deck.getByRole('switch', { name: 'Private' }).check();
      const ended = page
        .getByRole('alert')
        .filter({ hasText: 'Your session ended — sign in again to continue.' });
      await expect(ended).toBeVisible();
      // Nothing is lost: the page, and the name being typed.
      await expect(page.getByRole('heading', { name: 'Product number 2' })).toBeVisible();
      await expect(decks.getByLabel('New name for deck.pdf')).toHaveValue('Cider deck 2026.pdf');

      await ended.getByRole('button', { name: 'Sign in again' }).click();
      // The platform remembers this browser's sign-in: consent only, then back to the same page.
      await page.getByRole('button', { name: 'Allow' }).click();
      await page.waitForURL(`${shortLived.webUrl}/products/2`);
      const restored = slot(page, 'Pitch deck').getByLabel('New name for deck.pdf');
      await expect(restored).toHaveValue('Cider deck 2026.pdf');
      await restored.press('Enter');
      await expect(
        card(slot(page, 'Pitch deck'), 'Cider deck 2026.pdf')
          .getByRole('paragraph')
          .filter({ hasText: /^Cider deck 2026\.pdf$/ }),
      ).toBeVisible();
    } finally {
      await context.close();
      await shortLived.close();
    }
  });
});

for (const [shape, assetList] of [
  ['sideloaded', 'envelope'],
  ['top-level', 'envelope'],
  ['links-only', 'envelope'],
  ['links-only', 'array'],
] as const) {
  test.describe(`a spec-only platform whose entities list their files ${shape}${shape === 'links-only' ? ` (${assetList})` : ''}`, () => {
    let pair: SpecOnlyPair;
    test.beforeAll(async () => {
      pair = await startSpecOnlyPair({ entityShape: shape, assetList });
    });
    test.afterAll(async () => {
      await pair.close();
    });

    test('the product’s files come from the platform: upload, rename, private, delete', async ({ page }) => {
      await signIn(page, specPeople.issuer, specDefaultPassword, pair);
      await page.goto(`${pair.webUrl}/products/1`);
      await expect(page.getByRole('heading', { name: 'Product Harbour Bakery' })).toBeVisible();
      await expect(page.getByText(/does not list the files/)).toHaveCount(0);

      const decks = slot(page, 'Pitch deck');
      await decks
        .getByTestId('input-pitch_deck')
        .setInputFiles(await multiPagePdf(`deck-${shape}.pdf`, ['Bakery']));
      await expect(card(decks, `deck-${shape}.pdf`)).toBeVisible();

      // Listed by the platform, not remembered by this browser: forget the browser's memory, reload.
      await page.evaluate(() => localStorage.removeItem('asset-manager.memory'));
      await page.reload();
      const deck = card(slot(page, 'Pitch deck'), `deck-${shape}.pdf`);
      await expect(deck).toBeVisible();

      await deck.getByRole('button', { name: `Rename deck-${shape}.pdf` }).click();
      await page.getByLabel(`New name for deck-${shape}.pdf`).fill(`Bakery ${shape}.pdf`);
      await page.keyboard.press('Enter');
      const renamed = card(slot(page, 'Pitch deck'), `Bakery ${shape}.pdf`);
      await renamed.getByRole('switch', { name: 'Private' }).check();
      await page.reload();
      await expect(
        card(slot(page, 'Pitch deck'), `Bakery ${shape}.pdf`).getByRole('switch', { name: 'Private' }),
      ).toBeChecked();

      await card(slot(page, 'Pitch deck'), `Bakery ${shape}.pdf`)
        .getByRole('button', { name: `Delete Bakery ${shape}.pdf` })
        .click();
      await expect(card(slot(page, 'Pitch deck'), `Bakery ${shape}.pdf`)).toHaveCount(0);
      // Leaving the page within the undo window sends the delete at once (fetch keepalive).
      await page.reload();
      await expect
        .poll(
          async () => {
            await page.reload();
            await expect(slot(page, 'Pitch deck')).toBeVisible();
            return card(slot(page, 'Pitch deck'), `Bakery ${shape}.pdf`).count();
          },
          { timeout: 30_000 },
        )
        .toBe(0);
    });
  });
}

test.describe('a spec-only platform whose CORS admits no app at all: the API goes through the proxy', () => {
  let pair: SpecOnlyPair;
  test.beforeAll(async () => {
    pair = await startSpecOnlyPair({ corsOrigins: [], entityShape: 'top-level' });
  });
  test.afterAll(async () => {
    await pair.close();
  });

  test('every call reaches the platform through the proxy, Idempotency-Key included', async ({ page }) => {
    const config = (await (await page.request.get(`${pair.webUrl}/app-config.json`)).json()) as {
      apiBaseUrl: string;
    };
    expect(config.apiBaseUrl).toBe(pair.webUrl);
    const direct: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(`${pair.platformUrl}/v2/core/`)) direct.push(request.url());
    });

    await signIn(page, specPeople.issuer, specDefaultPassword, pair);
    await page.goto(`${pair.webUrl}/products/2`);
    await expect(page.getByRole('heading', { name: 'Product Orchard Cider' })).toBeVisible();
    const decks = slot(page, 'Pitch deck');
    await decks.getByTestId('input-pitch_deck').setInputFiles(await multiPagePdf('cider.pdf', ['Cider']));
    const deck = card(decks, 'cider.pdf');
    await expect(deck).toBeVisible();
    await deck.getByRole('switch', { name: 'Private' }).check();
    await expect(deck.getByText('Only you and the platform’s admins can see this file.')).toBeVisible();

    expect(direct).toEqual([]);
    const create = pair.platform.requests.find((r) => r.method === 'POST' && r.path === '/v2/core/assets')!;
    expect(create.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(create.headers['x-forwarded-for']).toBe('127.0.0.1');
    expect(create.headers.cookie).toBeUndefined();
  });

  test('a large file goes in one POST, as the spec has it: this platform offers no resumable uploads', async ({
    page,
  }) => {
    const tus: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.startsWith('/v2/core/uploads')) tus.push(request.url());
    });
    const creates = () =>
      pair.platform.requests.filter((r) => r.method === 'POST' && r.path === '/v2/core/assets').length;
    await signIn(page, specPeople.issuer, specDefaultPassword, pair);
    await page.goto(`${pair.webUrl}/products/2`);
    const decks = slot(page, 'Pitch deck');
    const before = creates();
    // Over the 5 MB from which the app sends resumably where a platform offers it.
    await decks.getByTestId('input-pitch_deck').setInputFiles(await largePdf('large-cider.pdf', 6));
    await expect(card(decks, 'large-cider.pdf')).toBeVisible();
    expect(creates()).toBe(before + 1);
    expect(tus).toEqual([]);
    await expect(decks.getByRole('button', { name: /^Pause/ })).toHaveCount(0);
  });
});

test.describe('a spec-only platform with refresh, revocation, renditions and 200 updates', () => {
  let pair: SpecOnlyPair;
  test.beforeAll(async () => {
    pair = await startSpecOnlyPair(
      { entityShape: 'top-level', refresh: true, revoke: true, renditions: true, updateAnswer: 200 },
      // A platform that publishes no description of itself: the operator says it makes renditions.
      { PLATFORM_CAPABILITIES: 'renditions=on' },
    );
  });
  test.afterAll(async () => {
    await pair.close();
  });

  test('previews are the platform’s renditions, and signing out ends the session there without a word', async ({
    page,
  }) => {
    await signIn(page, specPeople.issuer, specDefaultPassword, pair);
    await page.goto(`${pair.webUrl}/products/1`);
    const logo = await uploadRedSquareLogo(page);
    const preview = card(logo, 'logo.png').getByRole('img', { name: 'Preview of logo.png' });
    await expect(preview).toBeVisible();
    const src = new URL((await preview.getAttribute('src'))!);
    expect(await preview.evaluate((img: HTMLImageElement) => img.naturalWidth)).toBeLessThanOrEqual(320);
    expect(src.href).toContain('variant=cropped');
    expect(colourOf(await shownPixelOf(preview, 0.5, 0.5))).toBe('red');

    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await expect(page.getByText(/could not be reached|does not let apps/)).toHaveCount(0);
    expect(
      pair.platform.requests.some((r) => r.method === 'POST' && r.path === '/v2/core/oauth/revoke'),
    ).toBe(true);
  });
});
