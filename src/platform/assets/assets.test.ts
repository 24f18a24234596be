import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { meSchema } from '../../shared/api/me';
import { csv, dataUrl, jpeg, multipartBody, pdf, png, sha256 } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';

let platform: TestPlatform;
let issuer: string;
let investor: string;
let admin: string;
let productId: number;
let accreditationId: number;

beforeAll(async () => {
  platform = await startPlatform();
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  investor = (await tokensFor(platform, 'investor@demo.test')).access_token;
  admin = (await tokensFor(platform, 'admin@demo.test')).access_token;
  const me = async (token: string) =>
    meSchema.parse(await (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(token) })).json());
  productId = (await me(issuer)).entities.find((e) => e.type === 'Product')!.id;
  accreditationId = (await me(investor)).entities.find((e) => e.type === 'Accreditation')!.id;
});
afterAll(() => platform.close());

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, {
    ...init,
    headers: { ...bearer(token), ...(init.headers as Record<string, string>) },
  });

async function created(response: Response): Promise<Asset> {
  expect(response.status, await response.clone().text()).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

async function download(asset: Asset, token: string) {
  const { url } = (await (await api(`/v2/core/assets/${asset.id}/download_url`, token)).json()) as {
    url: string;
  };
  return fetch(url);
}

describe('POST /v2/core/assets in every body form', () => {
  it('takes flat multipart and keeps the bytes exactly', async () => {
    const bytes = await png(120, 80);
    const response = await api('/v2/core/assets', issuer, {
      method: 'POST',
      body: multipartBody(
        {
          file_type: 'logo',
          assetable_type: 'Product',
          assetable_id: String(productId),
          meta: '{"alt":"Logo"}',
        },
        { name: 'logo.png', bytes, type: 'image/png' },
      ),
    });
    expect(response.headers.get('location')).toMatch(/^\/v2\/core\/assets\/\d+$/);
    expect(response.headers.get('etag')).toMatch(/^"\d+\.1"$/);
    const asset = await created(response);
    expect(asset).toMatchObject({
      name: 'logo.png',
      file_type: 'logo',
      assetable: { type: 'Product', id: productId },
      meta: { alt: 'Logo' },
      private: false,
      thumbifiable: false,
      content_type: 'image/png',
      size: bytes.length,
      width: 120,
      height: 80,
    });
    expect(asset.thumbnail_id).toBeUndefined();
    expect(asset.key).not.toContain('logo');
    const file = await download(asset, issuer);
    expect(file.status).toBe(200);
    expect(sha256(new Uint8Array(await file.arrayBuffer()))).toBe(sha256(bytes));
  });

  it('takes asset[...]-wrapped multipart', async () => {
    const bytes = await pdf('Deck');
    const asset = await created(
      await api('/v2/core/assets', issuer, {
        method: 'POST',
        body: multipartBody(
          {
            file_type: 'pitch_deck',
            assetable_type: 'Product',
            assetable_id: String(productId),
            name: 'Pitch deck 2026',
            private: 'true',
          },
          { name: 'deck.pdf', bytes, type: 'application/pdf' },
          true,
        ),
      }),
    );
    expect(asset).toMatchObject({
      name: 'Pitch deck 2026',
      file_type: 'pitch_deck',
      private: true,
      thumbifiable: true,
      content_type: 'application/pdf',
    });
    expect(sha256(new Uint8Array(await (await download(asset, issuer)).arrayBuffer()))).toBe(sha256(bytes));
  });

  it('takes JSON with a data: URL, flat or under "asset"', async () => {
    const bytes = csv();
    for (const wrap of [false, true]) {
      const fields = {
        file: dataUrl(bytes, 'text/csv'),
        file_type: 'financial_document',
        assetable_type: 'Investment',
        assetable_id: 1,
        name: 'financials.csv',
        meta: { year: 2025 },
      };
      const asset = await created(
        await api('/v2/core/assets', issuer, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(wrap ? { asset: fields } : fields),
        }),
      );
      expect(asset).toMatchObject({ name: 'financials.csv', content_type: 'text/csv', meta: { year: 2025 } });
      expect(sha256(new Uint8Array(await (await download(asset, issuer)).arrayBuffer()))).toBe(sha256(bytes));
    }
  });

  it('answers the type the bytes are, not the one the name claims', async () => {
    const bytes = Buffer.from('Not a PDF at all, only words.\n');
    const asset = await created(
      await api('/v2/core/assets', issuer, {
        method: 'POST',
        body: multipartBody(
          { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
          { name: 'fake.pdf', bytes, type: 'application/pdf' },
        ),
      }),
    );
    expect(asset).toMatchObject({ name: 'fake.pdf', content_type: 'text/plain' });
    const read = assetEnvelopeSchema.parse(await (await api(`/v2/core/assets/${asset.id}`, issuer)).json());
    expect(read.asset.content_type).toBe('text/plain');
  });

  it('makes identity and accreditation documents private by default', async () => {
    const asset = await created(
      await api('/v2/core/assets', investor, {
        method: 'POST',
        body: multipartBody(
          {
            file_type: 'drivers_license',
            assetable_type: 'Accreditation',
            assetable_id: String(accreditationId),
          },
          { name: 'licence.jpg', bytes: await jpeg(), type: 'image/jpeg' },
        ),
      }),
    );
    expect(asset.private).toBe(true);
  });
});

describe('reading, updating and deleting', () => {
  async function newLogo() {
    return created(
      await api('/v2/core/assets', issuer, {
        method: 'POST',
        body: multipartBody(
          { file_type: 'logo', assetable_type: 'Product', assetable_id: String(productId) },
          { name: 'mark.png', bytes: await png(100, 100) },
        ),
      }),
    );
  }

  it('GET answers the asset with an ETag, and 304 when unchanged', async () => {
    const asset = await newLogo();
    const response = await api(`/v2/core/assets/${asset.id}`, issuer);
    expect(response.status).toBe(200);
    expect(assetEnvelopeSchema.parse(await response.json()).asset).toEqual(asset);
    const etag = response.headers.get('etag')!;
    expect(
      (await api(`/v2/core/assets/${asset.id}`, issuer, { headers: { 'if-none-match': etag } })).status,
    ).toBe(304);
  });

  it('PUT changes name, private and meta (meta replaced whole), honouring If-Match', async () => {
    const asset = await newLogo();
    const put = (body: unknown, headers: Record<string, string> = {}) =>
      api(`/v2/core/assets/${asset.id}`, issuer, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      });
    const first = await put({
      asset: { meta: { crop: { x: 10, y: 10, width: 50, height: 40 }, note: 'a' } },
    });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    const second = await put(
      { asset: { name: 'Renamed', private: true, meta: { note: 'b' } } },
      { 'if-match': etag },
    );
    expect(second.status).toBe(200);
    const updated = assetEnvelopeSchema.parse(await second.json()).asset;
    expect(updated).toMatchObject({ name: 'Renamed', private: true, meta: { note: 'b' } });
    expect(updated.meta).not.toHaveProperty('crop');
    // The old ETag is stale now.
    const stale = await put({ asset: { name: 'Lost update' } }, { 'if-match': etag });
    expect(stale.status).toBe(412);
    expect(((await stale.json()) as { code: string }).code).toBe('precondition_failed');
    expect(
      assetEnvelopeSchema.parse(await (await api(`/v2/core/assets/${asset.id}`, issuer)).json()).asset.name,
    ).toBe('Renamed');
  });

  it('PUT refuses fields other than private, name and meta', async () => {
    const asset = await newLogo();
    const response = await api(`/v2/core/assets/${asset.id}`, issuer, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: { file_type: 'cover_image' } }),
    });
    expect(response.status).toBe(422);
  });

  it('DELETE answers 204; the asset, its bytes and earlier download URLs are gone', async () => {
    const asset = await newLogo();
    const { url } = (await (await api(`/v2/core/assets/${asset.id}/download_url`, issuer)).json()) as {
      url: string;
    };
    const response = await api(`/v2/core/assets/${asset.id}`, issuer, { method: 'DELETE' });
    expect(response.status).toBe(204);
    expect((await api(`/v2/core/assets/${asset.id}`, issuer)).status).toBe(404);
    expect([403, 404]).toContain((await fetch(url)).status);
    expect((await api(`/v2/core/assets/${asset.id}`, issuer, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('download URLs and delivery', () => {
  it('is absolute, signed and expires; delivery sends safe headers, ranges and HEAD', async () => {
    const bytes = csv();
    const asset = await created(
      await api('/v2/core/assets', issuer, {
        method: 'POST',
        body: multipartBody(
          { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
          { name: 'Q1 "numbers" €.csv', bytes, type: 'text/csv' },
        ),
      }),
    );
    const { url } = (await (await api(`/v2/core/assets/${asset.id}/download_url`, issuer)).json()) as {
      url: string;
    };
    expect(url.startsWith(`${platform.url}/`)).toBe(true);
    expect(new URL(url).searchParams.get('signature')).toBeTruthy();

    const file = await fetch(url);
    expect(file.headers.get('content-type')).toBe('text/csv');
    // RFC 6266: an ASCII fallback in a quoted string, the exact name in RFC 8187 form.
    expect(file.headers.get('content-disposition')).toBe(
      `attachment; filename="Q1 \\"numbers\\" ?.csv"; filename*=UTF-8''Q1%20%22numbers%22%20%E2%82%AC.csv`,
    );
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');
    expect(file.headers.get('content-security-policy')).toContain('sandbox');
    expect(file.headers.get('accept-ranges')).toBe('bytes');
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);

    const range = await fetch(url, { headers: { range: 'bytes=5-11' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 5-11/${bytes.length}`);
    expect(Buffer.from(await range.arrayBuffer()).toString()).toBe(bytes.subarray(5, 12).toString());
    expect((await fetch(url, { headers: { range: `bytes=${bytes.length + 10}-` } })).status).toBe(416);

    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(bytes.length));

    platform.advance(301_000);
    expect((await fetch(url)).status).toBe(403);
  });

  it('shows images and PDFs inline', async () => {
    const asset = await created(
      await api('/v2/core/assets', issuer, {
        method: 'POST',
        body: multipartBody(
          { file_type: 'cover_image', assetable_type: 'Product', assetable_id: String(productId) },
          { name: 'cover.jpg', bytes: await jpeg(320, 180) },
        ),
      }),
    );
    const file = await download(asset, issuer);
    expect(file.headers.get('content-disposition')).toMatch(/^inline; /);
    expect(file.headers.get('content-type')).toBe('image/jpeg');
  });
});

describe('Idempotency-Key', () => {
  it('answers the first result for a retried create, and 422 for the same key with another request', async () => {
    const bytes = await png(30, 30);
    const send = (key: string, name: string) =>
      api('/v2/core/assets', issuer, {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: multipartBody(
          { file_type: 'logo', assetable_type: 'Product', assetable_id: String(productId), name },
          { name: 'x.png', bytes },
        ),
      });
    const first = await created(await send('retry-1', 'Same'));
    const again = await send('retry-1', 'Same');
    expect(again.status).toBe(201);
    expect(assetEnvelopeSchema.parse(await again.json()).asset.id).toBe(first.id);
    const product = (await (await api(`/v2/core/products/${productId}`, issuer)).json()) as {
      assets: Asset[];
    };
    expect(product.assets.filter((a) => a.name === 'Same')).toHaveLength(1);
    const different = await send('retry-1', 'Different');
    expect(different.status).toBe(422);
    expect(((await different.json()) as { code: string }).code).toBe('idempotency_key_reused');
  });
});

describe('entities, sideloads and links', () => {
  it('sideloads the assets and links to them', async () => {
    const response = await api(`/v2/core/products/${productId}`, issuer);
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      product: { id: number; name: string; links: { assets: string } };
      assets: Asset[];
    };
    expect(body.product).toMatchObject({
      id: productId,
      links: { assets: `/v2/core/products/${productId}/assets` },
    });
    expect(body.assets.length).toBeGreaterThan(0);
    const linked = (await (await api(body.product.links.assets, issuer)).json()) as { assets: Asset[] };
    expect(linked.assets).toEqual(body.assets);
  });

  it('shows an investor the offering material but not the private files', async () => {
    const body = (await (await api(`/v2/core/products/${productId}`, investor)).json()) as {
      assets: Asset[];
    };
    expect(body.assets.length).toBeGreaterThan(0);
    expect(body.assets.every((a) => !a.private)).toBe(true);
  });

  it('lists the catalog, with which slots hold one file and what each is for in plain words', async () => {
    const body = (await (await api('/v2/core/file_types', investor)).json()) as {
      file_types: { file_type: string; label: string; single_file: boolean; purpose: string }[];
    };
    expect(body.file_types).toHaveLength(19);
    const byName = new Map(body.file_types.map((t) => [t.file_type, t]));
    for (const one of ['logo', 'cover_image', 'avatar', 'team_member_avatar'])
      expect(byName.get(one)!.single_file, one).toBe(true);
    expect(byName.get('drivers_license')!.single_file).toBe(false);
    expect(byName.get('drivers_license')!.label).toBe("Driver's licence");
    // The spec's placeholder ("Purpose: to be determined in the interface") is nowhere.
    for (const t of body.file_types) expect(t.purpose, t.file_type).not.toMatch(/determined/i);
    expect(byName.get('investors_corporate_resolution')!.purpose).toMatch(
      /^When the investor invests for a company/,
    );
  });
});

describe('admin review', () => {
  it('lists pending accreditations with their private documents and records a decision', async () => {
    const document = await created(
      await api('/v2/core/assets', investor, {
        method: 'POST',
        body: multipartBody(
          {
            file_type: 'letter_of_accreditation',
            assetable_type: 'Accreditation',
            assetable_id: String(accreditationId),
          },
          { name: 'letter.pdf', bytes: await pdf('Accredited') },
        ),
      }),
    );
    expect(document.private).toBe(true);
    // A new accreditation waits for its documents: with both sides of the licence too, the investor
    // sends it for review, and only then is it in the admins' queue.
    await created(
      await api('/v2/core/assets', investor, {
        method: 'POST',
        body: multipartBody(
          {
            file_type: 'drivers_license',
            assetable_type: 'Accreditation',
            assetable_id: String(accreditationId),
            meta: '{"side":"both"}',
          },
          { name: 'licence.jpg', bytes: await jpeg() },
        ),
      }),
    );
    const sent = await api(`/v2/core/accreditations/${accreditationId}`, investor, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accreditation: { status: 'pending' } }),
    });
    expect(sent.status, await sent.clone().text()).toBe(200);
    const queue = (await (await api('/v2/core/accreditations?status=pending', admin)).json()) as {
      accreditations: { id: number; owner: { email: string }; assets: Asset[] }[];
    };
    const item = queue.accreditations.find((a) => a.id === accreditationId)!;
    expect(item.owner.email).toBe('investor@demo.test');
    expect(item.assets.map((a) => a.id)).toContain(document.id);
    // Admins read private documents (B3).
    expect((await api(`/v2/core/assets/${document.id}`, admin)).status).toBe(200);

    expect((await api('/v2/core/accreditations?status=pending', investor)).status).toBe(403);
    const decide = await api(`/v2/core/accreditations/${accreditationId}`, admin, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accreditation: { status: 'approved', note: 'Letter checked' } }),
    });
    expect(decide.status).toBe(200);
    expect(((await decide.json()) as { accreditation: { status: string } }).accreditation.status).toBe(
      'approved',
    );
    const after = (await (await api('/v2/core/accreditations?status=pending', admin)).json()) as {
      accreditations: { id: number }[];
    };
    expect(after.accreditations.map((a) => a.id)).not.toContain(accreditationId);
  });
});

describe('OpenAPI', () => {
  it('describes every Asset and entity endpoint with its error responses', async () => {
    const doc = (await (await fetch(`${platform.url}/v2/core/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const statuses = (path: string, method: string) =>
      Object.keys(doc.paths[path]?.[method]?.responses ?? {});
    expect(statuses('/v2/core/assets', 'post')).toEqual(
      expect.arrayContaining(['201', '401', '403', '404', '413', '415', '422']),
    );
    expect(statuses('/v2/core/assets/{id}', 'get')).toEqual(expect.arrayContaining(['200', '401', '404']));
    expect(statuses('/v2/core/assets/{id}', 'put')).toEqual(
      expect.arrayContaining(['200', '403', '404', '412', '415', '422']),
    );
    // 409: a file a decision was made on is retained.
    expect(statuses('/v2/core/assets/{id}', 'delete')).toEqual(
      expect.arrayContaining(['204', '403', '404', '409', '412']),
    );
    expect(statuses('/v2/core/accreditations/{id}', 'put')).toEqual(
      expect.arrayContaining(['200', '403', '404', '409', '412', '422']),
    );
    expect(statuses('/v2/core/assets/{id}/download_url', 'get')).toEqual(
      expect.arrayContaining(['200', '404']),
    );
    for (const plural of [
      'users',
      'products',
      'investments',
      'accreditations',
      'indications_of_interest',
      'team_members',
    ]) {
      expect(statuses(`/v2/core/${plural}/{id}`, 'get')).toEqual(
        expect.arrayContaining(['200', '401', '404']),
      );
      expect(statuses(`/v2/core/${plural}/{id}/assets`, 'get')).toEqual(
        expect.arrayContaining(['200', '404']),
      );
    }
    expect(statuses('/v2/core/accreditations', 'get')).toEqual(expect.arrayContaining(['200', '403']));
    expect(statuses('/v2/core/accreditations/{id}', 'put')).toEqual(
      expect.arrayContaining(['200', '403', '404', '422']),
    );
    expect(statuses('/v2/core/file_types', 'get')).toContain('200');
    expect(statuses('/v2/core/assets/{id}', 'delete')).toContain('412');
    expect(statuses('/v2/core/accreditations/{id}', 'put')).toContain('412');
    expect(statuses('/v2/core/accreditations/{id}/history', 'get')).toEqual(
      expect.arrayContaining(['200', '401', '403', '404', '422']),
    );
    expect(statuses('/v2/core/products', 'get')).toEqual(expect.arrayContaining(['200', '401', '422']));
    const productsQuery = doc.paths['/v2/core/products']!.get as unknown as {
      parameters: { name: string }[];
    };
    expect(productsQuery.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['cursor', 'limit']));
    // No collection endpoint for assets (spec 4).
    expect(doc.paths['/v2/core/assets']?.get).toBeUndefined();
  });
});
