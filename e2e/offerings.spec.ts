import type { APIResponse, Browser, Page } from '@playwright/test';
import { expect, storedAccessToken, test, type Login, type LoginOptions } from './support/app';
import { multiPagePdf, quadrantsPng } from './support/files';
import { colourOf, pixelOf } from './support/page-parts';
import { platformUrl } from './support/urls';

/**
 * The asset manager as investors live in it: the offerings they may read, from a product on to its
 * investments and team members, and where their accreditation stands, on the start page too.
 */

/** A person of the test's own, signed in in a browser of their own, whose token calls the platform as the app would. */
async function signedIn(browser: Browser, login: Login, options: LoginOptions) {
  const context = await browser.newContext();
  const person = await login({ ...options, context });
  const page = await context.newPage();
  await page.goto('/');
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
  return { person, page, call, close: () => context.close() };
}

const banner = (page: Page) => page.getByRole('banner');

test('an investor browses the offerings from the header, opens a product and goes on to its investment and team member', async ({
  page,
  browser,
  login,
}) => {
  test.setTimeout(120_000);
  // An issuer gives their product a logo, cropped to its blue quadrant (bottom left).
  const issuer = await signedIn(browser, login, { role: 'issuer' });
  const product = issuer.person.products[0]!;
  const logo = await quadrantsPng('solar-logo.png', 400, 300);
  const created = await issuer.call((authorization) =>
    issuer.page.request.post(`${platformUrl}/v2/core/assets`, {
      headers: { authorization },
      multipart: {
        file_type: 'logo',
        assetable_type: 'Product',
        assetable_id: String(product.id),
        meta: JSON.stringify({ crop: { x: 0, y: 150, width: 200, height: 150 } }),
        file: logo,
      },
    }),
  );
  expect(created.status(), await created.text()).toBe(201);
  const logoId = ((await created.json()) as { asset: { id: number } }).asset.id;

  try {
    await login({ role: 'investor' });
    await page.goto('/');
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

    // Every product of the platform, newest first: the issuer's, made for this test, among the first.
    // (Other tests make products of their own meanwhile, so how many there are is not this test's to say.)
    const offerings = page.getByRole('list', { name: 'Offerings' });
    await expect(offerings.getByRole('link', { name: product.name })).toBeVisible();
    const listed = await offerings.getByRole('link').count();

    // The product's logo, as the issuer cropped it: a small rendition of the blue quadrant alone.
    const theirs = offerings.getByRole('link', { name: product.name });
    const image = theirs.locator('img');
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
    await theirs.click();
    await expect(page.getByRole('heading', { level: 1, name: product.name })).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`/products/${product.id}$`));
    const related = page.getByRole('navigation', { name: 'Related' });
    await related.getByRole('link', { name: `${product.name} — Series A` }).click();
    await expect(page.getByRole('heading', { level: 1, name: `${product.name} — Series A` })).toBeVisible();
    // Not theirs: the heading says so beside the kind, and no slot offers to upload.
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/· view only/i);
    await expect(page.getByRole('button', { name: /^Choose/ })).toHaveCount(0);
    await page.goBack();
    await related.getByRole('link', { name: `${product.name} founder` }).click();
    await expect(page.getByRole('heading', { level: 1, name: `${product.name} founder` })).toBeVisible();
    await expect(page).toHaveURL(/\/team-members\/\d+$/);
    await expect(page.getByRole('heading', { level: 1 })).toHaveText(/· view only/i);

    // Back to the list keeps it as it was.
    await page.goBack();
    await page.goBack();
    await expect(page.getByRole('list', { name: 'Offerings' }).getByRole('link')).toHaveCount(listed);
  } finally {
    const removed = await issuer.call((authorization) =>
      issuer.page.request.delete(`${platformUrl}/v2/core/assets/${logoId}`, { headers: { authorization } }),
    );
    expect(removed.status()).toBe(204);
    await issuer.close();
  }
});

test('the start page says where the investor’s accreditation stands, and what to do after a rejection', async ({
  browser,
  login,
}) => {
  test.setTimeout(120_000);
  // The investor uploads what their accreditation needs and sends it for review; then an admin rejects it.
  const ivy = await signedIn(browser, login, { role: 'investor', name: 'Ivy Rejected' });
  const accreditation = ivy.person.accreditation!;
  const documents = [
    {
      file_type: 'letter_of_accreditation',
      meta: {},
      file: await multiPagePdf('letter.pdf', ['Accredited']),
    },
    { file_type: 'drivers_license', meta: { side: 'both' }, file: await quadrantsPng('licence.png') },
  ];
  for (const { file_type, meta, file } of documents) {
    const uploaded = await ivy.call((authorization) =>
      ivy.page.request.post(`${platformUrl}/v2/core/assets`, {
        headers: { authorization },
        multipart: {
          file_type,
          assetable_type: 'Accreditation',
          assetable_id: String(accreditation.id),
          meta: JSON.stringify(meta),
          file,
        },
      }),
    );
    expect(uploaded.status(), await uploaded.text()).toBe(201);
  }
  const sent = await ivy.call((authorization) =>
    ivy.page.request.put(`${platformUrl}/v2/core/accreditations/${accreditation.id}`, {
      headers: { authorization },
      data: { accreditation: { status: 'pending' } },
    }),
  );
  expect(sent.status(), await sent.text()).toBe(200);
  const admin = await signedIn(browser, login, { role: 'admin', name: 'Ada Reviewer' });
  const note = 'The letter is not signed. Upload a signed copy.';
  const decided = await admin.call((authorization) =>
    admin.page.request.put(`${platformUrl}/v2/core/accreditations/${accreditation.id}`, {
      headers: { authorization },
      data: { accreditation: { status: 'rejected', reason: 'unsigned', note } },
    }),
  );
  expect(decided.status(), await decided.text()).toBe(200);
  await admin.close();

  // The investor comes back to the app's start page.
  const page = ivy.page;
  await page.goto('/');
  const accreditations = page.getByRole('region', { name: 'Accreditations' });
  const mine = accreditations.getByRole('listitem').filter({ hasText: accreditation.name });
  await expect(mine).toHaveText(`${accreditation.name} Review: Rejected`);
  await expect(page.getByRole('link', { name: 'Browse offerings' })).toBeVisible();

  // The accreditation's page has the reason in plain words, the reviewer's note, when, and what to do.
  await mine.getByRole('link', { name: accreditation.name }).click();
  const review = page.getByRole('region', { name: 'Review: Rejected' });
  await expect(review.getByText('A document is not signed. Upload a signed copy of it.')).toBeVisible();
  await expect(review.getByText(note)).toBeVisible();
  await expect(review.getByText(/^Decided by Ada Reviewer on /)).toBeVisible();
  await expect(review.getByText(/What to do next:/)).toBeVisible();

  // A new letter answers the rejection: the accreditation needs sending again, here and at home.
  await page
    .getByTestId('input-letter_of_accreditation')
    .setInputFiles(await multiPagePdf('signed-letter.pdf', ['Accredited', 'Signed']));
  await expect(page.getByRole('button', { name: 'Open signed-letter.pdf' })).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole('region', { name: 'Review: Documents needed' })).toBeVisible({
    timeout: 30_000,
  });
  await page.getByRole('link', { name: 'Home' }).click();
  await expect(mine).toHaveText(`${accreditation.name} Review: Documents needed`);
  await ivy.close();
});
