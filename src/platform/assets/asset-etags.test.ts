import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { assetEnvelopeSchema, assetSchema, type Asset } from '../../shared/assets/asset';
import { multipartBody, pdf, png } from '../testing/files';
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

async function newLogo() {
  const response = await api('/v2/core/assets', issuer, {
    method: 'POST',
    body: multipartBody(
      { file_type: 'logo', assetable_type: 'Product', assetable_id: String(productId) },
      { name: 'mark.png', bytes: await png(50, 50) },
    ),
  });
  expect(response.status).toBe(201);
  const asset = assetEnvelopeSchema.parse(await response.json()).asset;
  expect(asset.etag).toBe(response.headers.get('etag'));
  return asset;
}

/** The ETag header of the asset's own read. */
const headerEtag = async (id: number, token = issuer) =>
  (await api(`/v2/core/assets/${id}`, token)).headers.get('etag');

const put = (id: number, changes: Record<string, unknown>, ifMatch?: string) =>
  api(`/v2/core/assets/${id}`, issuer, {
    method: 'PUT',
    headers: { 'content-type': 'application/json', ...(ifMatch ? { 'if-match': ifMatch } : {}) },
    body: JSON.stringify({ asset: changes }),
  });

describe('an etag field in every Asset', () => {
  it('equals the ETag header of the asset, in its own read, the entity read and links.assets', async () => {
    const logo = await newLogo();
    const read = await api(`/v2/core/assets/${logo.id}`, issuer);
    expect(assetEnvelopeSchema.parse(await read.json()).asset.etag).toBe(read.headers.get('etag'));

    const entity = (await (await api(`/v2/core/products/${productId}`, issuer)).json()) as {
      product: { links: { assets: string } };
      assets: Asset[];
    };
    const linked = (await (await api(entity.product.links.assets, issuer)).json()) as { assets: Asset[] };
    for (const list of [entity.assets, linked.assets]) {
      expect(list.length).toBeGreaterThan(0);
      for (const asset of list.map((a) => assetSchema.parse(a)))
        expect(asset.etag).toBe(await headerEtag(asset.id));
    }
  });

  it("equals the ETag header in the admins' review list", async () => {
    const response = await api('/v2/core/assets', investor, {
      method: 'POST',
      body: multipartBody(
        {
          file_type: 'letter_of_accreditation',
          assetable_type: 'Accreditation',
          assetable_id: String(accreditationId),
        },
        { name: 'letter.pdf', bytes: await pdf('Letter') },
      ),
    });
    expect(response.status).toBe(201);
    // The demo investor's accreditation waits for the rest of its documents: it is in that list.
    const queue = (await (await api('/v2/core/accreditations?status=documents_needed', admin)).json()) as {
      accreditations: { id: number; assets: Asset[] }[];
    };
    const assets = queue.accreditations.find((a) => a.id === accreditationId)!.assets;
    expect(assets.length).toBeGreaterThan(0);
    for (const asset of assets) expect(asset.etag).toBe(await headerEtag(asset.id, admin));
  });
});

describe('If-Match with the etag of a list', () => {
  it('lets an update through, whose answer carries the new etag in its body and header', async () => {
    await newLogo();
    const { assets } = (await (await api(`/v2/core/products/${productId}/assets`, issuer)).json()) as {
      assets: Asset[];
    };
    const listed = assets.at(-1)!;
    const response = await put(listed.id, { name: 'Renamed.png' }, listed.etag);
    expect(response.status).toBe(200);
    const updated = assetEnvelopeSchema.parse(await response.json()).asset;
    expect(updated.etag).not.toBe(listed.etag);
    expect(updated.etag).toBe(response.headers.get('etag'));
    expect(updated.etag).toBe(await headerEtag(listed.id));
  });

  it('answers 412 problem JSON to a stale update or delete, and changes nothing', async () => {
    const logo = await newLogo();
    expect((await put(logo.id, { name: 'Changed elsewhere.png' })).status).toBe(200);
    const stale = await put(logo.id, { name: 'Lost update.png' }, logo.etag);
    expect(stale.status).toBe(412);
    expect(stale.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(((await stale.json()) as { code: string }).code).toBe('precondition_failed');

    const staleDelete = await api(`/v2/core/assets/${logo.id}`, issuer, {
      method: 'DELETE',
      headers: { 'if-match': logo.etag! },
    });
    expect(staleDelete.status).toBe(412);
    expect(((await staleDelete.json()) as { code: string }).code).toBe('precondition_failed');
    const still = await api(`/v2/core/assets/${logo.id}`, issuer);
    expect(still.status).toBe(200);
    expect(assetEnvelopeSchema.parse(await still.json()).asset.name).toBe('Changed elsewhere.png');
  });

  it('deletes with the current etag, and compares strongly (a weak tag never matches)', async () => {
    const logo = await newLogo();
    const current = (await headerEtag(logo.id))!;
    const weak = await api(`/v2/core/assets/${logo.id}`, issuer, {
      method: 'DELETE',
      headers: { 'if-match': `W/${current}` },
    });
    expect(weak.status).toBe(412);
    const listed = await api(`/v2/core/assets/${logo.id}`, issuer, {
      method: 'DELETE',
      headers: { 'if-match': `"0.0", ${current}` },
    });
    expect(listed.status).toBe(204);
    expect((await api(`/v2/core/assets/${logo.id}`, issuer)).status).toBe(404);
  });
});
