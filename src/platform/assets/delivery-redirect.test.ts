import { randomBytes } from 'node:crypto';
import { parse as parseDisposition } from 'content-disposition';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { alteredSignature, multipartBody, png } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { s3TestEnv } from '../testing/s3';

/**
 * S3_DELIVERY=redirect: a signed URL of ours answers a 302 to a presigned URL of the bucket, after
 * the very checks a streamed answer passes; the bucket then sends the bytes with our headers.
 */

let platform: TestPlatform;
let issuer: string;
let s3Endpoint: string;

beforeAll(async () => {
  const s3 = await s3TestEnv();
  s3Endpoint = s3.S3_ENDPOINT!;
  platform = await startPlatform({ ...s3, S3_DELIVERY: 'redirect' });
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
});
afterAll(() => platform.close());

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, {
    ...init,
    headers: { ...bearer(issuer), ...(init.headers as Record<string, string>) },
  });

async function upload(fields: Record<string, string>, name: string, bytes: Uint8Array): Promise<Asset> {
  const response = await api('/v2/core/assets', {
    method: 'POST',
    body: multipartBody(fields, { name, bytes }),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

async function signedUrl(asset: Pick<Asset, 'id'>, query = '') {
  const response = await api(`/v2/core/assets/${asset.id}/download_url${query}`);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

/** Our answer, not followed: a redirect to the bucket. */
async function redirectOf(url: string) {
  const response = await fetch(url, { redirect: 'manual' });
  expect(response.status).toBe(302);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const location = new URL(response.headers.get('location')!);
  expect(location.origin).toBe(new URL(s3Endpoint).origin);
  expect(location.searchParams.get('X-Amz-Expires')).toBe('60');
  return location.toString();
}

const documentFields = { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' };
const logoFields = { file_type: 'logo', assetable_type: 'Product', assetable_id: '1' };

describe('S3_DELIVERY=redirect', () => {
  it('sends the bytes from the bucket, with our type and name, and ranges', async () => {
    const bytes = Buffer.concat([
      Buffer.from('year,revenue\n'),
      Buffer.from(randomBytes(40_000).toString('hex')),
    ]);
    const asset = await upload(documentFields, 'numbers.html', bytes);
    const location = await redirectOf(await signedUrl(asset));

    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/plain');
    expect(parseDisposition(file.headers.get('content-disposition')!)).toEqual({
      type: 'attachment',
      parameters: { filename: 'numbers.txt' },
    });
    expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);

    // A client following the redirect sends its Range on to the bucket.
    const part = await fetch(await signedUrl(asset), { headers: { range: 'bytes=100-199' } });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe(`bytes 100-199/${bytes.length}`);
    expect(Buffer.from(await part.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
  });

  it('answers HEAD and If-None-Match itself, with our headers', async () => {
    const asset = await upload(logoFields, 'logo.png', await png(40, 30));
    const url = await signedUrl(asset);
    const head = await fetch(url, { method: 'HEAD', redirect: 'manual' });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(asset.size));
    expect(head.headers.get('content-type')).toBe('image/png');
    const etag = head.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{64}"$/);
    const cached = await fetch(url, { headers: { 'if-none-match': etag }, redirect: 'manual' });
    expect(cached.status).toBe(304);
  });

  it('redirects to a rendition it made and stored in the bucket', async () => {
    const asset = await upload(logoFields, 'logo.png', await png(400, 300));
    const location = await redirectOf(await signedUrl(asset, '?variant=preview&width=160'));
    expect(new URL(location).pathname).toContain('/renditions/v1/');
    const file = await fetch(location);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/webp');
    expect(parseDisposition(file.headers.get('content-disposition')!)).toEqual({
      type: 'inline',
      parameters: { filename: 'logo.webp' },
    });
    expect((await sharp(Buffer.from(await file.arrayBuffer())).metadata()).width).toBe(160);
  });

  it('checks before redirecting: a wrong, expired or ended link gets no URL of the bucket', async () => {
    const asset = await upload(documentFields, 'plan.txt', Buffer.from('the plan\n'));
    const url = new URL(await signedUrl(asset));

    const forged = new URL(url);
    forged.searchParams.set('signature', alteredSignature(url.searchParams.get('signature')!));
    const refused = await fetch(forged, { redirect: 'manual' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('location')).toBeNull();

    platform.advance(3_600_000);
    const expired = await fetch(url, { redirect: 'manual' });
    expect(expired.status).toBe(403);
    expect(expired.headers.get('location')).toBeNull();
    platform.advance(-3_600_000);

    // Made private: the link was signed over the old state, and stops at once.
    const changed = await api(`/v2/core/assets/${asset.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: { private: true } }),
    });
    expect(changed.status).toBe(200);
    const ended = await fetch(url, { redirect: 'manual' });
    expect(ended.status).toBe(403);
    expect(ended.headers.get('location')).toBeNull();
  });
});
