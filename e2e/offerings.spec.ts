import type { APIResponse, Browser, Page } from '@playwright/test';
import { expect, signIn, storedAccessToken, test } from './support/app';
import { multiPagePdf, quadrantsPng } from './support/files';
import { colourOf, pixelOf } from './support/page-parts';
import { platformUrl } from './support/urls';

/**
 * The asset manager as investors live in it: the offerings they may read, from a product on to its
 * investments and team members, and where their accreditation stands, on the start page too.
 */

/** A person signed in in a browser of their own, whose token calls the platform as the app would. */
async function signedIn(browser: Browser, email: string) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await signIn(page, email);
  /**
   * A call to the platform with the page's current token. Tokens live seconds here (the e2e
   * platform's ACCESS_TOKEN_TTL) and the open page renews them: a 401 is asked again once renewed.
   */
  async function call(send: (authorization: string) => Promise<APIResponse>): Promise<APIResponse> {
    let response!: APIResponse;
    await expect
      .poll(
        async () => {
          response = await send(`Bearer ${await storedAccessToken(page)}`);
          return response.status();
        },
        { timeout: 30_000 },
      )
      .not.toBe(401);
    return response;
  }
  return { page, call, close: () => context.close() };
}

const banner = (page: Page) => page.getByRole('banner');

test('an investor browses the offerings from the header, opens a product and goes on to its investment and team member', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  // The issuer gives Solar Farm Fund I a logo, cropped to its blue quadrant (bottom left).
  const issuer = await signedIn(browser, 'issuer@demo.test');
  const logo = await quadrantsPng('solar-logo.png', 400, 300);
  const created = await issuer.call((authorization) =>
    issuer.page.request.post(`${platformUrl}/v2/core/assets`, {
      headers: { authorization },
      multipart: {
        file_type: 'logo',
        assetable_type: 'Product',
        assetable_id: '1',
        meta: JSON.stringify({ crop: { x: 0, y: 150, width: 200, height: 150 } }),
        file: logo,
      },
    }),
  );
  expect(created.status(), await created.text()).toBe(201);
  const logoId = ((await created.json()) as { asset: { id: number } }).asset.id;

  try {
    await signIn(page, 'investor@demo.test');
    await banner(page)
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Offerings' })
      .click();
    await expect(page.getByRole('heading', { level: 1, name: 'Offerings' })).toBeVisible();
    await expect(page).toHaveURL(/\/offerings$/);
    await expect(banner(page).getByRole('link', { name: 'Offerings' })).toHaveAttribute(
      'aria-current',
      'page',
    );

    // Every product of the platform (newest first), the demo's two fitting on one page.
    const offerings = page.getByRole('list', { name: 'Offerings' });
    await expect(offerings.getByRole('link')).toHaveText([/Harbor Street Lofts$/, /Solar Farm Fund I$/]);
    await expect(page.getByText('All 2 offerings are shown.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Show more' })).toHaveCount(0);

    // Solar's logo, as the issuer cropped it: a small rendition of the blue quadrant alone.
    const solar = offerings.getByRole('link', { name: 'Solar Farm Fund I' });
    const image = solar.locator('img');
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), {
        timeout: 30_000,
      })
      .toBeGreaterThan(0);
    const src = new URL((await image.getAttribute('src'))!);
    expect(src.searchParams.get('variant')).toBe('cropped');
    for (const [x, y] of [
      [0.1, 0.1],
      [0.5, 0.5],
      [0.9, 0.9],
    ] as const) {
      expect(colourOf(await pixelOf(page, image, x, y))).toBe('blue');
    }
    const shown = await pixelOf(page, image, 0.5, 0.5);
    expect(shown.width).toBeLessThanOrEqual(200);
    // Every card is whole: a picture that loaded, or the initial on a neutral tile, never a broken image.
    for (const card of await offerings.getByRole('listitem').all()) {
      const img = card.locator('img');
      if ((await img.count()) === 0) await expect(card.locator('.offering-initial')).toHaveText(/^\S$/);
      else expect(await img.evaluate((i: HTMLImageElement) => i.naturalWidth)).toBeGreaterThan(0);
    }

    // On to the product, then its investment, back, and its team member: all for the investor to read.
    await solar.click();
    await expect(page.getByRole('heading', { level: 1, name: /Solar Farm Fund I/ })).toBeVisible();
    await expect(page).toHaveURL(/\/products\/1$/);
    const related = page.getByRole('navigation', { name: 'Related' });
    await related.getByRole('link', { name: 'Solar Farm Fund I — Series A' }).click();
    await expect(page.getByRole('heading', { level: 1, name: /Solar Farm Fund I — Series A/ })).toBeVisible();
    // Not theirs: the heading says so beside the kind, and no slot offers to upload.
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/· view only/i);
    await expect(page.getByRole('button', { name: /^Choose/ })).toHaveCount(0);
    await page.goBack();
    await related.getByRole('link', { name: 'Grace Founder' }).click();
    await expect(page.getByRole('heading', { level: 1, name: /Grace Founder/ })).toBeVisible();
    await expect(page).toHaveURL(/\/team-members\/\d+$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/· view only/i);

    // Back to the list keeps it as it was.
    await page.goBack();
    await page.goBack();
    await expect(page.getByRole('list', { name: 'Offerings' }).getByRole('link')).toHaveCount(2);
  } finally {
    const removed = await issuer.call((authorization) =>
      issuer.page.request.delete(`${platformUrl}/v2/core/assets/${logoId}`, { headers: { authorization } }),
    );
    expect(removed.status()).toBe(204);
    await issuer.close();
  }
});

test('the start page says where the investor’s accreditation stands, and what to do after a rejection', async ({
  page,
  browser,
}) => {
  test.setTimeout(120_000);
  // The investor uploads what the demo accreditation needs and sends it for review, whatever an
  // earlier test left it as (a new file reopens a decided one); then an admin rejects it.
  const ivy = await signedIn(browser, 'investor@demo.test');
  const documents = [
    { file_type: 'letter_of_accreditation', meta: {}, file: multiPagePdf('letter.pdf', ['Accredited']) },
    { file_type: 'drivers_license', meta: { side: 'both' }, file: await quadrantsPng('licence.png') },
  ];
  for (const { file_type, meta, file } of documents) {
    const uploaded = await ivy.call((authorization) =>
      ivy.page.request.post(`${platformUrl}/v2/core/assets`, {
        headers: { authorization },
        multipart: {
          file_type,
          assetable_type: 'Accreditation',
          assetable_id: '1',
          meta: JSON.stringify(meta),
          file,
        },
      }),
    );
    expect(uploaded.status(), await uploaded.text()).toBe(201);
  }
  const sent = await ivy.call((authorization) =>
    ivy.page.request.put(`${platformUrl}/v2/core/accreditations/1`, {
      headers: { authorization },
      data: { accreditation: { status: 'pending' } },
    }),
  );
  expect(sent.status(), await sent.text()).toBe(200);
  await ivy.close();
  const admin = await signedIn(browser, 'admin@demo.test');
  const note = 'The letter is not signed. Upload a signed copy.';
  const decided = await admin.call((authorization) =>
    admin.page.request.put(`${platformUrl}/v2/core/accreditations/1`, {
      headers: { authorization },
      data: { accreditation: { status: 'rejected', reason: 'unsigned', note } },
    }),
  );
  expect(decided.status(), await decided.text()).toBe(200);
  await admin.close();

  await signIn(page, 'investor@demo.test');
  const accreditations = page.getByRole('region', { name: 'Accreditations' });
  const mine = accreditations.getByRole('listitem').filter({ hasText: 'Accreditation of Ivy Investor' });
  await expect(mine).toHaveText('Accreditation of Ivy Investor Review: Rejected');
  await expect(page.getByRole('link', { name: 'Browse offerings' })).toBeVisible();

  // The accreditation's page has the reason in plain words, the reviewer's note, when, and what to do.
  await mine.getByRole('link', { name: 'Accreditation of Ivy Investor' }).click();
  const review = page.getByRole('region', { name: 'Review: Rejected' });
  await expect(review.getByText('A document is not signed. Upload a signed copy of it.')).toBeVisible();
  await expect(review.getByText(note)).toBeVisible();
  await expect(review.getByText(/^Decided by Ada Admin on /)).toBeVisible();
  await expect(review.getByText(/What to do next:/)).toBeVisible();

  // A new letter answers the rejection: the accreditation needs sending again, here and at home.
  await page
    .getByTestId('input-letter_of_accreditation')
    .setInputFiles(multiPagePdf('signed-letter.pdf', ['Accredited', 'Signed']));
  await expect(page.getByRole('button', { name: 'Open signed-letter.pdf' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('region', { name: 'Review: Documents needed' })).toBeVisible({
    timeout: 30_000,
  });
  await page.getByRole('link', { name: 'Home' }).click();
  await expect(mine).toHaveText('Accreditation of Ivy Investor Review: Documents needed');
});
