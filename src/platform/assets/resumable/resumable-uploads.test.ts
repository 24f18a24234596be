import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meSchema } from '../../../shared/api/me';
import { assetEnvelopeSchema, type Asset } from '../../../shared/assets/asset';
import { resumableUploadsPath } from '../../../shared/api/resumable-uploads';
import { multipartBody, pdf, png, sha256 } from '../../testing/files';
import { bearer, startPlatform, tokensFor, type TestPlatform } from '../../testing/platform-server';
import { resumableUploadTraces } from '../../testing/stored-files';
import { startTcpProxy } from '../../testing/tcp-proxy';
import { tusTestEnv, tusUpload, untilSwept, uploadMetadataHeader } from '../../testing/tus-client';

let platform: TestPlatform;
let issuer: string;
let investor: string;
let admin: string;
let productId: number;

beforeAll(async () => {
  platform = await startPlatform(tusTestEnv());
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  investor = (await tokensFor(platform, 'investor@demo.test')).access_token;
  admin = (await tokensFor(platform, 'admin@demo.test')).access_token;
  const me = meSchema.parse(
    await (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(issuer) })).json(),
  );
  productId = me.entities.find((e) => e.type === 'Product')!.id;
});
afterAll(() => platform.close());

const deckFields = () => ({
  file_type: 'pitch_deck',
  assetable_type: 'Product',
  assetable_id: String(productId),
  name: 'Deck.pdf',
});

/** A PDF of about `bytes` bytes: a real one, padded with a comment (PDF readers skip it). */
async function bigPdf(bytes: number): Promise<Buffer> {
  const head = await pdf('Resumable');
  return Buffer.concat([head, Buffer.from('\n%'), randomBytes(Math.max(0, bytes - head.length - 2))]);
}

const create = (token: string | undefined, fields: Record<string, string>, length: number, extra = {}) =>
  fetch(`${platform.url}${resumableUploadsPath}`, {
    method: 'POST',
    headers: {
      ...(token ? bearer(token) : {}),
      'tus-resumable': '1.0.0',
      'upload-length': String(length),
      'upload-metadata': uploadMetadataHeader(fields),
      ...extra,
    },
  });

const traces = (id: string, of: TestPlatform = platform) => resumableUploadTraces(of, id);
const idOf = (uploadUrl: string) => uploadUrl.split('/').pop()!;

describe('tus at /v2/core/uploads', () => {
  it('answers the discovery OPTIONS without a token', async () => {
    const response = await fetch(`${platform.url}${resumableUploadsPath}`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('tus-resumable')).toBe('1.0.0');
    expect(response.headers.get('tus-version')).toContain('1.0.0');
    expect(response.headers.get('tus-extension')).toContain('creation');
    expect(response.headers.get('tus-extension')).toContain('expiration');
    expect(Number(response.headers.get('tus-max-size'))).toBe(platform.config.maxUploadBytes);
  });

  it('makes the same asset as POST, with the same bytes, and answers it on the final PATCH and GET', async () => {
    const bytes = await png(320, 200);
    const fields = { file_type: 'logo', assetable_type: 'Product', assetable_id: String(productId) };
    const posted = await fetch(`${platform.url}/v2/core/assets`, {
      method: 'POST',
      headers: bearer(issuer),
      body: multipartBody(
        { ...fields, meta: '{"alt":"Logo"}' },
        { name: 'logo.png', bytes, type: 'image/png' },
      ),
    });
    expect(posted.status).toBe(201);
    const viaPost = assetEnvelopeSchema.parse(await posted.json()).asset;

    const { done } = tusUpload(platform.url, issuer, bytes, {
      ...fields,
      meta: '{"alt":"Logo"}',
      filename: 'logo.png',
      content_type: 'image/png',
    });
    const result = await done;
    expect(result.status).toBe(200);
    const viaTus = assetEnvelopeSchema.parse(result.body).asset;
    const comparable = (asset: Asset) => ({
      ...asset,
      ...{ id: 0, key: '', etag: '', created_at: 0, updated_at: 0, links: undefined },
    });
    expect(comparable(viaTus)).toEqual(comparable(viaPost));
    expect(viaTus.id).not.toBe(viaPost.id);

    const again = await fetch(result.uploadUrl, { headers: bearer(issuer) });
    expect(again.status).toBe(200);
    expect(assetEnvelopeSchema.parse(await again.json()).asset.id).toBe(viaTus.id);
    const download = (await (
      await fetch(`${platform.url}/v2/core/assets/${viaTus.id}/download_url`, { headers: bearer(issuer) })
    ).json()) as { url: string };
    expect(sha256(Buffer.from(await (await fetch(download.url)).arrayBuffer()))).toBe(sha256(bytes));
    // The asset has its copy; the upload's bytes are gone.
    expect(await traces(idOf(result.uploadUrl))).toEqual([]);
  });

  it('answers a repeated final PATCH (its answer lost) and HEAD with the same asset', async () => {
    const bytes = await pdf('Twice');
    const result = await tusUpload(platform.url, issuer, bytes, deckFields()).done;
    const asset = assetEnvelopeSchema.parse(result.body).asset;
    const repeated = await fetch(result.uploadUrl, {
      method: 'PATCH',
      headers: {
        ...bearer(issuer),
        'tus-resumable': '1.0.0',
        'upload-offset': String(bytes.length),
        'content-type': 'application/offset+octet-stream',
      },
    });
    expect(repeated.status).toBe(200);
    expect(assetEnvelopeSchema.parse(await repeated.json()).asset.id).toBe(asset.id);
    const head = await fetch(result.uploadUrl, {
      method: 'HEAD',
      headers: { ...bearer(issuer), 'tus-resumable': '1.0.0' },
    });
    expect(head.headers.get('upload-offset')).toBe(String(bytes.length));
  });

  it('refuses bad metadata at creation, before any byte, as POST refuses the same form', async () => {
    const bytes = await pdf('Refused');
    const cases: [
      string | undefined,
      Record<string, string>,
      number,
      Record<string, string>,
      number,
      string,
    ][] = [
      [undefined, deckFields(), bytes.length, {}, 401, 'invalid_token'],
      [admin, deckFields(), bytes.length, {}, 403, 'forbidden'],
      [issuer, { ...deckFields(), assetable_id: '999999' }, bytes.length, {}, 404, 'not_found'],
      [issuer, { ...deckFields(), file_type: 'no_such_type' }, bytes.length, {}, 422, 'validation_failed'],
      [issuer, { ...deckFields(), file_type: 'logo' }, 30 * 1024 * 1024, {}, 413, 'file_too_large'],
      [issuer, { ...deckFields(), content_type: 'text/html' }, bytes.length, {}, 415, 'unsupported_content'],
    ];
    for (const [token, fields, length, extra, status, code] of cases) {
      const response = await create(token, fields, length, extra);
      expect(response.status, `${code}: ${await response.clone().text()}`).toBe(status);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(((await response.json()) as { code: string }).code).toBe(code);
      expect(response.headers.get('location')).toBeNull();
    }
  });

  it("answers 404 for another user's upload, whatever the method", async () => {
    const created = await create(issuer, deckFields(), 1000);
    expect(created.status).toBe(201);
    const url = new URL(created.headers.get('location')!, platform.url).href;
    const tus = { 'tus-resumable': '1.0.0' };
    for (const init of [
      { method: 'HEAD', headers: { ...bearer(investor), ...tus } },
      { method: 'GET', headers: bearer(investor) },
      { method: 'DELETE', headers: { ...bearer(investor), ...tus } },
      {
        method: 'PATCH',
        headers: {
          ...bearer(investor),
          ...tus,
          'upload-offset': '0',
          'content-type': 'application/offset+octet-stream',
        },
        body: Buffer.alloc(10),
      },
    ]) {
      expect((await fetch(url, init)).status, init.method).toBe(404);
    }
    const mine = await fetch(url, { method: 'HEAD', headers: { ...bearer(issuer), ...tus } });
    expect(mine.status).toBe(200);
    expect(mine.headers.get('upload-offset')).toBe('0');
    expect((await fetch(url, { headers: bearer(issuer) })).status).toBe(409);
    // Its creator gives up: the bytes and the upload go.
    expect((await fetch(url, { method: 'DELETE', headers: { ...bearer(issuer), ...tus } })).status).toBe(204);
    expect((await fetch(url, { method: 'HEAD', headers: { ...bearer(issuer), ...tus } })).status).toBe(404);
    expect(await traces(idOf(url))).toEqual([]);
  });

  it('answers a PATCH at the wrong offset 409, and one with more bytes than Upload-Length 413, each as problem+json', async () => {
    const created = await create(issuer, deckFields(), 100);
    const url = new URL(created.headers.get('location')!, platform.url).href;
    const patch = (offset: number, bytes: number) =>
      fetch(url, {
        method: 'PATCH',
        headers: {
          ...bearer(issuer),
          'tus-resumable': '1.0.0',
          'upload-offset': String(offset),
          'content-type': 'application/offset+octet-stream',
        },
        body: new Uint8Array(bytes),
      });
    // The library's own refusals read as every other error of the API: a problem with a code.
    const refusal = async (response: Response) => ({
      status: response.status,
      type: response.headers.get('content-type'),
      code: ((await response.json()) as { code?: string }).code,
    });
    expect(await refusal(await patch(50, 10))).toEqual({
      status: 409,
      type: 'application/problem+json',
      code: 'offset_mismatch',
    });
    expect(await refusal(await patch(0, 200))).toEqual({
      status: 413,
      type: 'application/problem+json',
      code: 'payload_too_large',
    });
    const head = await fetch(url, {
      method: 'HEAD',
      headers: { ...bearer(issuer), 'tus-resumable': '1.0.0' },
    });
    expect(head.headers.get('upload-offset')).toBe('0');
  });

  it('ends an upload whose bytes the slot does not take with 415, keeping nothing', async () => {
    const html = Buffer.from('<html><script>alert(1)</script></html>'.padEnd(2000, ' '));
    const { done, upload } = tusUpload(platform.url, issuer, html, deckFields());
    await expect(done).rejects.toThrow(/415.*unsupported_content/);
    expect(await traces(idOf(upload.url!))).toEqual([]);
    const head = await fetch(upload.url!, {
      method: 'HEAD',
      headers: { ...bearer(issuer), 'tus-resumable': '1.0.0' },
    });
    expect(head.status).toBe(404);
  });

  it('resumes an upload cut at about half way, sending little more than the file in all', async () => {
    const bytes = await bigPdf(8 * 1024 * 1024);
    const relay = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(platform.url).port) });
    try {
      let cut = false;
      const { done } = tusUpload(`http://127.0.0.1:${relay.port}`, issuer, bytes, deckFields(), {
        retryDelays: [100, 300, 1000, 2000, 4000],
        onProgress: (sent, total) => {
          if (!cut && sent >= total / 2) {
            cut = true;
            void relay.cut().then(() => relay.restore());
          }
        },
      });
      const result = await done;
      expect(cut).toBe(true);
      const asset = assetEnvelopeSchema.parse(result.body).asset;
      expect(asset.size).toBe(bytes.length);
      expect(relay.bytesUp()).toBeLessThanOrEqual(1.1 * bytes.length);
      const download = (await (
        await fetch(`${platform.url}/v2/core/assets/${asset.id}/download_url`, { headers: bearer(issuer) })
      ).json()) as { url: string };
      expect(sha256(Buffer.from(await (await fetch(download.url)).arrayBuffer()))).toBe(sha256(bytes));
    } finally {
      await relay.close();
    }
  });
});

describe('expiry', () => {
  let short: TestPlatform;
  beforeAll(async () => {
    short = await startPlatform({ ...tusTestEnv(), RESUMABLE_UPLOAD_EXPIRY_MS: '1500' });
  });
  afterAll(() => short.close());

  it('sweeps an unfinished upload, bytes and row, once past its Upload-Expires', async () => {
    const token = (await tokensFor(short, 'issuer@demo.test')).access_token;
    const created = await fetch(`${short.url}${resumableUploadsPath}`, {
      method: 'POST',
      headers: {
        ...bearer(token),
        'tus-resumable': '1.0.0',
        'upload-length': '2000',
        'upload-metadata': uploadMetadataHeader(deckFields()),
        'content-type': 'application/offset+octet-stream',
      },
      body: new Uint8Array((await pdf('Half')).subarray(0, 300)),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('upload-offset')).toBe('300');
    const expires = Date.parse(created.headers.get('upload-expires')!);
    expect(expires).toBeGreaterThan(Date.now() - 1000);
    const url = new URL(created.headers.get('location')!, short.url).href;
    const files = () => traces(idOf(url), short);
    expect((await files()).length).toBeGreaterThan(0);

    const { status, left } = await untilSwept(url, token, files);
    expect(status).toBe(404);
    expect(left).toEqual([]);
  });
});
