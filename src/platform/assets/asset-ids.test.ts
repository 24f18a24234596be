import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { multipartBody, png } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';

/** One resource, one URL: ids in paths are plain decimal integers (H5, U11). */

let platform: TestPlatform;
let issuer: string;

beforeAll(async () => {
  platform = await startPlatform();
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
});
afterAll(() => platform.close());

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, {
    ...init,
    headers: { ...bearer(issuer), ...(init.headers as Record<string, string>) },
  });

async function uploadLogo(): Promise<Asset> {
  const response = await api('/v2/core/assets', {
    method: 'POST',
    body: multipartBody(
      { file_type: 'logo', assetable_type: 'Product', assetable_id: '1' },
      { name: 'logo.png', bytes: await png() },
    ),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

async function signedUrl(asset: Pick<Asset, 'id'>) {
  const response = await api(`/v2/core/assets/${asset.id}/download_url`);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

describe('H5 U11 ids are plain decimal integers on every route', () => {
  const spellings = (id: number) => [
    `0x${id.toString(16)}`,
    `${id}e0`,
    `+${id}`,
    `0${id}`,
    `%20${id}`,
    `${id}%20`,
    `${id}.0`,
    `${id}.`,
    `0${id}`.padStart(20, '0'),
  ];

  it('H5 U11 answers 404 for asset ids in any other spelling, including signed file URLs', async () => {
    const asset = await uploadLogo();
    const file = new URL(await signedUrl(asset));
    for (const id of spellings(asset.id)) {
      const routes: [string, RequestInit?][] = [
        [`/v2/core/assets/${id}`],
        [`/v2/core/assets/${id}/download_url`],
        [
          `/v2/core/assets/${id}`,
          {
            method: 'PUT',
            headers: { 'content-type': 'application/json' },
            body: '{"asset":{"name":"x.png"}}',
          },
        ],
        [`/v2/core/assets/${id}`, { method: 'DELETE' }],
      ];
      for (const [path, init] of routes) {
        const response = await api(path, init);
        expect(response.status, `${init?.method ?? 'GET'} ${path}`).toBe(404);
      }
      // The file route, with the signature of the real id: the spelling alone must fail.
      const respelled = `${platform.url}/files/assets/${id}${file.search}`;
      expect((await fetch(respelled)).status, respelled).toBe(404);
    }
    // Nothing was changed or deleted through a respelled id.
    const after = await api(`/v2/core/assets/${asset.id}`);
    expect(assetEnvelopeSchema.parse(await after.json()).asset.name).toBe('logo.png');
    expect((await fetch(file)).status).toBe(200);
  });

  it('H5 U11 answers 404 for entity and accreditation ids in any other spelling', async () => {
    const admin = (await tokensFor(platform, 'admin@demo.test')).access_token;
    const asAdmin = (path: string, init: RequestInit = {}) =>
      fetch(`${platform.url}${path}`, {
        ...init,
        headers: { ...bearer(admin), 'content-type': 'application/json' },
      });
    // A rejection without a note is refused (422) for a real id: nothing changes in this test.
    const review = { method: 'PUT', body: JSON.stringify({ accreditation: { status: 'rejected' } }) };
    for (const id of spellings(1)) {
      for (const path of [
        `/v2/core/products/${id}`,
        `/v2/core/products/${id}/assets`,
        `/v2/core/accreditations/${id}`,
        `/v2/core/accreditations/${id}/history`,
      ]) {
        expect((await asAdmin(path)).status, path).toBe(404);
      }
      expect((await asAdmin(`/v2/core/accreditations/${id}`, review)).status, `PUT ${id}`).toBe(404);
    }
    expect((await asAdmin('/v2/core/products/1')).status).toBe(200);
    expect((await asAdmin('/v2/core/accreditations/1')).status).toBe(200);
    expect((await asAdmin('/v2/core/accreditations/1/history')).status).toBe(200);
    expect((await asAdmin('/v2/core/accreditations/1', review)).status).toBe(422);
  });
});
