import { spawn } from 'node:child_process';
import { once } from 'node:events';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  assetAnswer,
  assetListAnswers,
  downloadUrlAnswer,
  entityAnswers,
  exampleAsset,
  oauthErrorAnswer,
  railsErrorAnswer,
  shapeOf,
  tokenAnswer,
} from '../../src/testing/spec-examples';
import { quadrantsPng, rotatedPhotoJpeg, type TestFile } from './files';
import {
  type SpecOnlyPlatform,
  type SpecOnlyPlatformOptions,
  specEntities,
  specPeople,
  startSpecOnlyPlatform,
} from './spec-only-platform';

const appOrigin = 'http://127.0.0.1:5999';
const client = {
  client_id: 'asset-manager',
  client_secret: 'client-secret',
  redirect_uris: [`${appOrigin}/auth/callback`],
};
const redirectUri = client.redirect_uris[0]!;

/** A platform per test that needs its own switches; all closed after each test. */
const started: SpecOnlyPlatform[] = [];
async function platformWith(options: Partial<SpecOnlyPlatformOptions> = {}) {
  const platform = await startSpecOnlyPlatform({ clients: [client], corsOrigins: [appOrigin], ...options });
  started.push(platform);
  return platform;
}
afterEach(async () => {
  await Promise.all(started.splice(0).map((platform) => platform.close()));
});

/** One platform with every extension on, shared by the tests that do not depend on a switch. */
let full: SpecOnlyPlatform;
beforeAll(async () => {
  full = await startSpecOnlyPlatform({
    clients: [client],
    corsOrigins: [appOrigin],
    refresh: true,
    revoke: true,
    renditions: true,
    updateAnswer: 200,
    entityShape: 'sideloaded',
  });
});
afterAll(() => full.close());

// ---- a browser's part of the code flow, done with fetch and a cookie ----

const decodeHtml = (text: string) =>
  text.replace(
    /&(amp|lt|gt|quot|#39);/g,
    (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!,
  );

/** The page's one form: where it posts and its hidden fields. */
function readForm(html: string) {
  const action = decodeHtml(/<form method="post" action="([^"]*)"/.exec(html)![1]!);
  const fields: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[decodeHtml(name!)] = decodeHtml(value!);
  }
  return { action, fields };
}

const postForm = (url: string, fields: Record<string, string>, cookie = '') =>
  fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams(fields),
  });

function authorizeUrl(platform: SpecOnlyPlatform, params: Record<string, string> = {}) {
  const query = new URLSearchParams({
    client_id: client.client_id,
    redirect_uri: redirectUri,
    state: 'st',
    scope: 'full',
    ...params,
  });
  return `${platform.url}/auth/login/oauth/authorize?${query}`;
}

/** Signs in with the form and answers the consent page; returns where the browser was sent back. */
async function authorize(
  platform: SpecOnlyPlatform,
  {
    email = specPeople.issuer as string,
    decision = 'allow',
    params = {} as Record<string, string>,
    cookie = '',
  } = {},
) {
  let page = await fetch(authorizeUrl(platform, params), { headers: { cookie } });
  if (!cookie) {
    const signIn = readForm(await page.text());
    const signedIn = await postForm(`${platform.url}${signIn.action}`, {
      ...signIn.fields,
      email,
      password: 'spec-password',
    });
    expect(signedIn.status).toBe(302);
    cookie = signedIn.headers.get('set-cookie')!.split(';')[0]!;
    page = await fetch(`${platform.url}${signedIn.headers.get('location')}`, { headers: { cookie } });
  }
  const consentHtml = await page.text();
  expect(consentHtml).toContain('<button type="submit" name="decision" value="allow">Allow</button>');
  expect(consentHtml).toContain('<button type="submit" name="decision" value="deny">Deny</button>');
  const consent = readForm(consentHtml);
  const answer = await postForm(`${platform.url}${consent.action}`, { ...consent.fields, decision }, cookie);
  expect(answer.status).toBe(302);
  return { callback: new URL(answer.headers.get('location')!), cookie };
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

const tokenUrl = (platform: SpecOnlyPlatform, grantType: string) =>
  `${platform.url}/v2/core/oauth/token?grant_type=${grantType}`;

async function signIn(platform: SpecOnlyPlatform, email: string = specPeople.issuer, scope = 'full') {
  const { callback } = await authorize(platform, { email, params: { scope } });
  const response = await postJson(tokenUrl(platform, 'authorization_code'), {
    client_id: client.client_id,
    client_secret: client.client_secret,
    code: callback.searchParams.get('code'),
    state: 'st',
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { access_token: string; refresh_token: string };
}

// ---- the Asset API ----

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

function upload(
  platform: SpecOnlyPlatform,
  token: string,
  file: TestFile,
  fields: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('file', new Blob([new Uint8Array(file.buffer)], { type: file.mimeType }), file.name);
  return fetch(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: { ...bearer(token), ...headers },
    body: form,
  });
}

const logoFields = { file_type: 'logo', assetable_type: 'Product', assetable_id: '1' };

async function uploadLogo(platform: SpecOnlyPlatform, token: string, file?: TestFile, fields = {}) {
  const response = await upload(platform, token, file ?? (await quadrantsPng()), {
    ...logoFields,
    ...fields,
  });
  expect(response.status).toBe(201);
  return ((await response.json()) as { asset: { id: number; meta: unknown } }).asset;
}

const api = (platform: SpecOnlyPlatform, path: string, token: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, { ...init, headers: { ...bearer(token), ...init.headers } });

const put = (platform: SpecOnlyPlatform, id: number, token: string, asset: unknown, headers = {}) =>
  api(platform, `/v2/core/assets/${id}`, token, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ asset }),
  });

async function downloadUrl(platform: SpecOnlyPlatform, id: number, token: string, query = '') {
  const response = await api(platform, `/v2/core/assets/${id}/download_url${query}`, token);
  expect(response.status).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

describe('sign-in (spec 4.1, 4.2, 5)', () => {
  it('runs the code flow: sign-in form, consent, the same state back, and the flat token object', async () => {
    const page = await (await fetch(authorizeUrl(full))).text();
    expect(page).toContain('<label for="email">Email</label>');
    expect(page).toContain('<label for="password">Password</label>');
    expect(page).toContain('<button type="submit">Sign in</button>');

    const state = 'a b+c/=?&é%20';
    const params = { state, response_type: 'code', code_challenge: 'x'.repeat(43), prompt: 'login' };
    const { callback, cookie } = await authorize(full, { params });
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    expect(callback.searchParams.get('state')).toBe(state);

    const body = {
      client_id: client.client_id,
      client_secret: client.client_secret,
      code: callback.searchParams.get('code'),
      state,
    };
    const response = await postJson(tokenUrl(full, 'authorization_code'), {
      ...body,
      code_verifier: 'ignored',
    });
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as Record<string, string>;
    expect(Object.keys(tokens).sort()).toEqual(['access_token', 'refresh_token', 'token_type']);
    expect(tokens.token_type).toBe('bearer');
    expect((await api(full, '/v2/core/products/1', tokens.access_token!)).status).toBe(200);

    // The browser's sign-in is remembered: the next authorize goes straight to consent.
    const again = await fetch(authorizeUrl(full), { headers: { cookie } });
    expect(await again.text()).toContain('name="decision" value="allow"');
  });

  it('refuses a form body, a reused code, a wrong state and a wrong secret', async () => {
    const code = async () => (await authorize(full)).callback.searchParams.get('code')!;
    const body = { client_id: client.client_id, client_secret: client.client_secret, state: 'st' };

    const form = await fetch(tokenUrl(full, 'authorization_code'), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...body, code: await code() }),
    });
    expect(form.status).toBe(400);

    const once = await code();
    expect((await postJson(tokenUrl(full, 'authorization_code'), { ...body, code: once })).status).toBe(200);
    const reused = await postJson(tokenUrl(full, 'authorization_code'), { ...body, code: once });
    expect([reused.status, await reused.json()]).toEqual([400, { error: 'invalid_grant' }]);

    const wrongState = await postJson(tokenUrl(full, 'authorization_code'), {
      ...body,
      state: 'other',
      code: await code(),
    });
    expect(wrongState.status).toBe(400);

    const wrongSecret = { ...body, client_secret: 'nope', code: await code() };
    const unauthorized = await postJson(tokenUrl(full, 'authorization_code'), wrongSecret);
    expect([unauthorized.status, await unauthorized.json()]).toEqual([401, { error: 'invalid_client' }]);
  });

  it('shows a plain 400 page for an unknown client or redirect_uri, and redirects a denial with its state', async () => {
    const invalid: Record<string, string>[] = [
      { client_id: 'stranger' },
      { redirect_uri: `${redirectUri}/` },
      { state: '' },
    ];
    for (const params of invalid) {
      const response = await fetch(authorizeUrl(full, params), { redirect: 'manual' });
      expect(response.status).toBe(400);
      expect(response.headers.get('location')).toBeNull();
      expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    }
    const { callback } = await authorize(full, { decision: 'deny', params: { state: 'keep me' } });
    expect(Object.fromEntries(callback.searchParams)).toEqual({ error: 'access_denied', state: 'keep me' });
  });

  it('refreshes with rotation when the switch is on, and refuses the grant when it is off', async () => {
    const { refresh_token } = await signIn(full);
    const refresh = (platform: SpecOnlyPlatform, token: string) =>
      postJson(tokenUrl(platform, 'refresh_token'), {
        client_id: client.client_id,
        client_secret: client.client_secret,
        refresh_token: token,
      });
    const renewed = await refresh(full, refresh_token);
    expect(renewed.status).toBe(200);
    const tokens = (await renewed.json()) as Record<string, string>;
    expect(Object.keys(tokens).sort()).toEqual(['access_token', 'refresh_token', 'token_type']);
    expect(tokens.refresh_token).not.toBe(refresh_token);
    expect((await api(full, '/v2/core/products/1', tokens.access_token!)).status).toBe(200);
    expect((await refresh(full, refresh_token)).status).toBe(400);

    const strict = await platformWith();
    const off = await refresh(strict, (await signIn(strict)).refresh_token);
    expect([off.status, await off.json()]).toEqual([400, { error: 'unsupported_grant_type' }]);
  });

  it('revokes a refresh token and its access tokens when the switch is on; without it the route is a 404', async () => {
    const { access_token, refresh_token } = await signIn(full);
    const revoked = await postJson(`${full.url}/v2/core/oauth/revoke`, {
      client_id: client.client_id,
      client_secret: client.client_secret,
      token: refresh_token,
    });
    expect(revoked.status).toBe(200);
    expect((await api(full, '/v2/core/products/1', access_token)).status).toBe(401);
    const refresh = { client_id: client.client_id, client_secret: client.client_secret, refresh_token };
    expect((await postJson(tokenUrl(full, 'refresh_token'), refresh)).status).toBe(400);

    // RFC 7009's own form body works too, and an access token ends its grant as well.
    const second = await signIn(full);
    const byForm = await postForm(`${full.url}/v2/core/oauth/revoke`, {
      client_id: client.client_id,
      client_secret: client.client_secret,
      token: second.access_token,
    });
    expect(byForm.status).toBe(200);
    expect((await api(full, '/v2/core/products/1', second.access_token)).status).toBe(401);

    const strict = await platformWith();
    const missing = await postJson(`${strict.url}/v2/core/oauth/revoke`, {
      ...refresh,
      token: refresh_token,
    });
    expect(missing.status).toBe(404);
  });

  it('answers 401 to a missing, unknown or expired token, and 403 to a write with the basic scope', async () => {
    expect((await fetch(`${full.url}/v2/core/assets/1`)).status).toBe(401);
    const unknown = await api(full, '/v2/core/assets/1', 'not-a-token');
    expect([unknown.status, await unknown.json()]).toMatchObject([401, { errors: [expect.any(String)] }]);

    const basic = (await signIn(full, specPeople.issuer, 'basic')).access_token;
    expect((await api(full, '/v2/core/products/1', basic)).status).toBe(200);
    expect((await upload(full, basic, await quadrantsPng(), logoFields)).status).toBe(403);
    const asset = await uploadLogo(full, (await signIn(full)).access_token);
    expect((await put(full, asset.id, basic, { name: 'x' })).status).toBe(403);
    expect((await api(full, `/v2/core/assets/${asset.id}`, basic, { method: 'DELETE' })).status).toBe(403);

    // Tokens that live a minute, on a clock the test moves: the token works however long signing in
    // took on a busy machine, and stops once its minute has passed.
    let later = 0;
    const shortLived = await platformWith({ accessTokenTtlSeconds: 60, clock: () => Date.now() + later });
    const { access_token } = await signIn(shortLived);
    expect((await api(shortLived, '/v2/core/assets/1', access_token)).status).toBe(404);
    later = 61_000;
    expect((await api(shortLived, '/v2/core/assets/1', access_token)).status).toBe(401);
  });
});

describe('assets (spec 2.2, 4.3–4.7)', () => {
  let issuer: string;
  beforeAll(async () => {
    issuer = (await signIn(full)).access_token;
  });

  it('creates an asset with exactly the fields of spec 2.2, ignoring fields the spec does not list', async () => {
    const response = await upload(full, issuer, await quadrantsPng('bakery.png'), {
      ...logoFields,
      meta: JSON.stringify({ crop: { x: 1 } }),
      private: 'true',
    });
    expect(response.status).toBe(201);
    const { asset } = (await response.json()) as { asset: Record<string, unknown> };
    expect(Object.keys(asset).sort()).toEqual(
      ['assetable', 'file_type', 'id', 'key', 'meta', 'name', 'private', 'thumbifiable'].sort(),
    );
    expect(asset).toMatchObject({
      name: 'bakery.png',
      file_type: 'logo',
      assetable: { type: 'Product', id: 1 },
      meta: { crop: { x: 1 } },
      private: false,
      thumbifiable: false,
    });
    expect(asset.id).toEqual(expect.any(Number));

    const deck = await upload(full, issuer, await quadrantsPng(), {
      file_type: 'pitch_deck',
      assetable_type: 'Product',
      assetable_id: '2',
      name: 'Deck',
      'meta[crop][x]': '10',
      'meta[crop][y]': '20',
    });
    expect(await deck.json()).toMatchObject({
      asset: { name: 'Deck', thumbifiable: true, meta: { crop: { x: '10', y: '20' } } },
    });
  });

  it('refuses an unknown file type or one of another entity with 422, and accepts any entity where 2.3 does not say', async () => {
    const png = await quadrantsPng();
    const unknown = await upload(full, issuer, png, { ...logoFields, file_type: 'selfie' });
    expect([unknown.status, await unknown.json()]).toMatchObject([422, { errors: [expect.any(String)] }]);
    expect((await upload(full, issuer, png, { ...logoFields, assetable_type: 'Investment' })).status).toBe(
      422,
    );
    const plan = { file_type: 'business_plan', assetable_type: 'User', assetable_id: '2' };
    expect((await upload(full, issuer, png, plan)).status).toBe(201);
  });

  it('refuses a file over the upload limit with 413', async () => {
    const small = await platformWith({ maxUploadBytes: 1000 });
    const token = (await signIn(small)).access_token;
    const response = await upload(
      small,
      token,
      { name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(5000) },
      logoFields,
    );
    expect(response.status).toBe(413);
  });

  it('reads, updates (200 with the asset, or 204), deletes; there is no collection route', async () => {
    const asset = await uploadLogo(full, issuer, undefined, {
      meta: JSON.stringify({ crop: { x: 1 }, note: 'a' }),
    });
    const read = await api(full, `/v2/core/assets/${asset.id}`, issuer);
    expect(read.headers.get('etag')).toBeNull();
    expect(await read.json()).toEqual({ asset });

    const updated = await put(
      full,
      asset.id,
      issuer,
      {
        name: 'Renamed',
        private: true,
        meta: { crop: { x: 2 } },
      },
      { 'if-match': '"not-its-version"' },
    );
    expect(updated.status).toBe(200);
    // The new meta replaces the old one (`note` is gone); If-Match means nothing here.
    expect(await updated.json()).toEqual({
      asset: { ...asset, name: 'Renamed', private: true, meta: { crop: { x: 2 } } },
    });

    const quiet = await platformWith({ updateAnswer: 204 });
    const token = (await signIn(quiet)).access_token;
    const other = await uploadLogo(quiet, token);
    const noContent = await put(quiet, other.id, token, { private: true });
    expect([noContent.status, await noContent.text()]).toEqual([204, '']);
    expect(await (await api(quiet, `/v2/core/assets/${other.id}`, token)).json()).toMatchObject({
      asset: { private: true },
    });

    const deleted = await api(full, `/v2/core/assets/${asset.id}`, issuer, { method: 'DELETE' });
    expect(deleted.status).toBe(204);
    expect((await api(full, `/v2/core/assets/${asset.id}`, issuer)).status).toBe(404);
    const collection = await api(full, '/v2/core/assets', issuer);
    expect([collection.status, await collection.json()]).toEqual([404, { errors: ['Not found'] }]);
  });

  it("hides another person's assets and entities behind 404", async () => {
    const asset = await uploadLogo(full, issuer);
    const other = (await signIn(full, specPeople.other)).access_token;
    expect((await api(full, `/v2/core/assets/${asset.id}`, other)).status).toBe(404);
    expect((await api(full, `/v2/core/assets/${asset.id}/download_url`, other)).status).toBe(404);
    expect((await put(full, asset.id, other, { name: 'mine' })).status).toBe(404);
    expect((await api(full, `/v2/core/assets/${asset.id}`, other, { method: 'DELETE' })).status).toBe(404);
    expect((await upload(full, other, await quadrantsPng(), logoFields)).status).toBe(404);
    expect((await api(full, '/v2/core/products/1', other)).status).toBe(404);
    expect((await api(full, `/v2/core/products/${specEntities.otherProduct.id}`, other)).status).toBe(200);
  });

  it('gives a signed, absolute download URL serving the original bytes with the declared type', async () => {
    const png = await quadrantsPng();
    const asset = await uploadLogo(full, issuer, png);
    const url = await downloadUrl(full, asset.id, issuer);
    expect(url.startsWith(`${full.url}/`)).toBe(true);
    const file = await fetch(url);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(png.buffer)).toBe(true);
    const tampered = new URL(url);
    tampered.searchParams.set('expires', String(Number(tampered.searchParams.get('expires')) + 3600));
    expect((await fetch(tampered)).status).toBe(403);
  });

  it('serves WebP renditions when the switch is on: a narrower preview, and the crop of the upright image', async () => {
    const preview = await fetch(
      await downloadUrl(full, (await uploadLogo(full, issuer)).id, issuer, '?variant=preview&width=100'),
    );
    expect(preview.headers.get('content-type')).toBe('image/webp');
    const previewInfo = await sharp(Buffer.from(await preview.arrayBuffer())).metadata();
    expect([previewInfo.format, previewInfo.width, previewInfo.height]).toEqual(['webp', 100, 75]);

    // Stored sideways (EXIF 6): upright it is 480×640, its top-left quarter blue.
    const photo = await uploadLogo(full, issuer, await rotatedPhotoJpeg(), {
      meta: JSON.stringify({ crop: { x: 0, y: 0, width: 240, height: 320 } }),
    });
    const cropped = await fetch(await downloadUrl(full, photo.id, issuer, '?variant=cropped'));
    const image = sharp(Buffer.from(await cropped.arrayBuffer()));
    const { width, height } = await image.metadata();
    const [red, green, blue] = (await image.stats()).channels.map((channel) => channel.mean);
    expect([width, height]).toEqual([240, 320]);
    expect(blue).toBeGreaterThan(150);
    expect(Math.max(red!, green!)).toBeLessThan(100);
  });

  it('ignores rendition parameters when the switch is off: the URL serves the original', async () => {
    const strict = await platformWith();
    const token = (await signIn(strict)).access_token;
    const png = await quadrantsPng();
    const asset = await uploadLogo(strict, token, png);
    const file = await fetch(await downloadUrl(strict, asset.id, token, '?variant=preview&width=100'));
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer()).equals(png.buffer)).toBe(true);
  });

  it('records each request, Authorization without its token', async () => {
    await upload(full, issuer, await quadrantsPng(), logoFields, { 'idempotency-key': 'k-1' });
    const sent = full.requests.findLast((request) => request.headers['idempotency-key'] === 'k-1');
    expect(sent).toMatchObject({
      method: 'POST',
      path: '/v2/core/assets',
      headers: { authorization: 'Bearer [redacted]' },
    });
  });
});

describe('entities (spec 4: sideloaded or linked assets)', () => {
  async function productWithLogo(options: Partial<SpecOnlyPlatformOptions>) {
    const platform = await platformWith(options);
    const token = (await signIn(platform)).access_token;
    const asset = await uploadLogo(platform, token);
    const response = await api(platform, '/v2/core/products/1', token);
    return { platform, token, asset, response, body: (await response.json()) as Record<string, unknown> };
  }

  it('sideloads assets inside the entity object', async () => {
    const { body, asset } = await productWithLogo({ entityShape: 'sideloaded' });
    expect(body).toEqual({ product: { id: 1, name: 'Harbour Bakery', assets: [asset] } });
  });

  it('puts assets beside the entity at the top level', async () => {
    const { body, asset } = await productWithLogo({ entityShape: 'top-level' });
    expect(body).toEqual({ product: { id: 1, name: 'Harbour Bakery' }, assets: [asset] });
  });

  it.each([
    ['envelope', (asset: unknown) => ({ assets: [asset] })],
    ['array', (asset: unknown) => [asset]],
  ] as const)('links to the assets, which answer as %s', async (assetList, expected) => {
    const { platform, token, body, asset } = await productWithLogo({ entityShape: 'links-only', assetList });
    expect(body).toEqual({
      product: { id: 1, name: 'Harbour Bakery', links: { assets: '/v2/core/products/1/assets' } },
    });
    expect(await (await api(platform, '/v2/core/products/1/assets', token)).json()).toEqual(expected(asset));
  });

  it('has no entity routes when the shape is missing', async () => {
    const { response, body } = await productWithLogo({ entityShape: 'missing' });
    expect([response.status, body]).toEqual([404, { errors: ['Not found'] }]);
  });
});

describe("conformance: the spec's example requests answer the shared examples' shapes", () => {
  // src/testing/spec-examples.ts is what the three platform doubles share; a change there or here alone
  // fails one of these.
  const example = {
    token: tokenAnswer('access', 'refresh'),
    asset: assetAnswer(exampleAsset),
    downloadUrl: downloadUrlAnswer('https://files.test/x'),
    product: { id: 1, name: 'Harbour Bakery' },
  };

  it('token (4.2), create (4.3), read (4.4), download URL (4.5), update with 200 (4.6)', async () => {
    const { callback } = await authorize(full);
    const token = await postJson(tokenUrl(full, 'authorization_code'), {
      client_id: client.client_id,
      client_secret: client.client_secret,
      code: callback.searchParams.get('code'),
      state: 'st',
    });
    const tokens = (await token.json()) as { access_token: string };
    expect(shapeOf(tokens)).toEqual(shapeOf(example.token));

    const created = await upload(
      full,
      tokens.access_token,
      await quadrantsPng(exampleAsset.name),
      logoFields,
    );
    const answer = (await created.json()) as { asset: { id: number } };
    expect(shapeOf(answer)).toEqual(shapeOf(example.asset));
    const { id: _id, key: _key, ...expected } = exampleAsset;
    expect(answer.asset).toMatchObject({ ...expected, assetable: { type: 'Product', id: 1 } });

    const path = `/v2/core/assets/${answer.asset.id}`;
    expect(shapeOf(await (await api(full, path, tokens.access_token)).json())).toEqual(
      shapeOf(example.asset),
    );
    const url = await (await api(full, `${path}/download_url`, tokens.access_token)).json();
    expect(shapeOf(url)).toEqual(shapeOf(example.downloadUrl));
    const updated = await put(full, answer.asset.id, tokens.access_token, { private: true });
    expect(shapeOf(await updated.json())).toEqual(shapeOf(example.asset));
  });

  it.each([
    ['sideloaded', entityAnswers.sideloaded('product', example.product, [exampleAsset])],
    ['top-level', entityAnswers.topLevel('product', example.product, [exampleAsset])],
    ['links-only', entityAnswers.linksOnly('product', example.product, '/v2/core/products/1/assets')],
  ] as const)('an entity read, %s (spec 4, not shown)', async (entityShape, expected) => {
    const platform = await platformWith({ entityShape });
    const token = (await signIn(platform)).access_token;
    await uploadLogo(platform, token);
    expect(shapeOf(await (await api(platform, '/v2/core/products/1', token)).json())).toEqual(
      shapeOf(expected),
    );
  });

  it.each([
    ['envelope', assetListAnswers.envelope([exampleAsset])],
    ['array', assetListAnswers.array([exampleAsset])],
  ] as const)('a links.assets list, as %s (not shown)', async (assetList, expected) => {
    const platform = await platformWith({ entityShape: 'links-only', assetList });
    const token = (await signIn(platform)).access_token;
    await uploadLogo(platform, token);
    const list = await (await api(platform, '/v2/core/products/1/assets', token)).json();
    expect(shapeOf(list)).toEqual(shapeOf(expected));
  });

  it('errors (spec 7, not shown): the token endpoint in RFC 6749’s shape, the API in a Rails API’s', async () => {
    const refused = await postJson(tokenUrl(full, 'authorization_code'), { client_id: 'nobody' });
    expect(shapeOf(await refused.json())).toEqual(shapeOf(oauthErrorAnswer('invalid_client')));
    const missing = await fetch(`${full.url}/v2/core/assets/1`);
    expect(shapeOf(await missing.json())).toEqual(
      shapeOf(railsErrorAnswer(['Invalid or expired access token'])),
    );
  });
});

describe('CORS', () => {
  const preflight = (platform: SpecOnlyPlatform, path: string, headers = 'authorization') =>
    fetch(`${platform.url}${path}`, {
      method: 'OPTIONS',
      headers: {
        origin: appOrigin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': headers,
      },
    });

  it('allows exactly the configured request headers, so Idempotency-Key is not allowed by default', async () => {
    const refused = await preflight(full, '/v2/core/assets', 'authorization,idempotency-key');
    expect(refused.headers.get('access-control-allow-origin')).toBe(appOrigin);
    expect(refused.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type');
    expect(refused.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, DELETE');

    const generous = await platformWith({
      corsHeaders: ['Authorization', 'Content-Type', 'Idempotency-Key'],
    });
    const allowed = await preflight(generous, '/v2/core/assets', 'authorization,idempotency-key');
    expect(allowed.headers.get('access-control-allow-headers')).toContain('Idempotency-Key');
  });

  it('answers only listed origins, exposes no headers, and leaves the token endpoints out', async () => {
    const stranger = await fetch(`${full.url}/v2/core/assets/1`, {
      headers: { origin: 'http://elsewhere.test' },
    });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const listed = await fetch(`${full.url}/v2/core/assets/1`, { headers: { origin: appOrigin } });
    expect(listed.headers.get('access-control-allow-origin')).toBe(appOrigin);
    expect(listed.headers.get('access-control-expose-headers')).toBeNull();

    expect(
      (await preflight(full, '/v2/core/oauth/token')).headers.get('access-control-allow-origin'),
    ).toBeNull();
    const token = await postJson(tokenUrl(full, 'authorization_code'), {}, { origin: appOrigin });
    expect(token.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('as a child process', () => {
  it('reads its options from the environment and prints the address it listens on', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'e2e/support/spec-only-platform.ts'], {
      env: {
        ...process.env,
        SPEC_PLATFORM_CLIENTS: JSON.stringify([client]),
        SPEC_PLATFORM_ENTITY_SHAPE: 'top-level',
        SPEC_PLATFORM_REVOKE: 'on',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [line] = (await once(child.stdout, 'data')) as [Buffer];
      const url = /^listening (http:\/\/\S+)\n$/.exec(line.toString())?.[1];
      expect(url).toBeDefined();
      const cli = { url } as SpecOnlyPlatform;
      const token = (await signIn(cli)).access_token;
      expect(await (await api(cli, '/v2/core/products/2', token)).json()).toEqual({
        product: { id: 2, name: 'Orchard Cider' },
        assets: [],
      });
      expect((await postJson(`${url}/v2/core/oauth/revoke`, {})).status).toBe(401);
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(0);
    // A node process of its own, loading tsx and Fastify: seconds on a busy machine.
  }, 90_000);
});
