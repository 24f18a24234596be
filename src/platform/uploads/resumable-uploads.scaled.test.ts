import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { resumableUploadsPath } from '../../shared/api/resumable-uploads';
import { pdf, sha256 } from '../testing/files';
import { bearer, startPlatform, tokensFor, type TestPlatform } from '../testing/platform-server';
import { tusUpload } from '../testing/tus-client';

/** Two instances on one database, one bucket and one Redis (the platform-scaled project). */
let first: TestPlatform;
let second: TestPlatform;
let token: string;

beforeAll(async () => {
  first = await startPlatform();
  second = await startPlatform({}, { shareWith: first });
  token = (await tokensFor(first, 'issuer@demo.test')).access_token;
});
afterAll(async () => {
  await second?.close();
  await first?.close();
});

const b64 = (value: string) => Buffer.from(value).toString('base64');
const metadata = [
  `file_type ${b64('pitch_deck')}`,
  `assetable_type ${b64('Product')}`,
  `assetable_id ${b64('1')}`,
  `name ${b64('Deck.pdf')}`,
].join(',');
const tus = { 'tus-resumable': '1.0.0' };

// Skipped: the tests' S3 server (s3rver) answers ListParts, which @tus/s3-store needs to continue
// an upload, with 405 (testing/tus-client.ts, tusTestEnv). To run against a real bucket or MinIO.
it.skip('continues on one instance an upload begun on another, and makes its asset once', async () => {
  const bytes = Buffer.concat([pdf('Two instances'), Buffer.from('\n%'), randomBytes(7 * 1024 * 1024)]);
  const half = 6 * 1024 * 1024; // S3 parts are at least 5 MB: the first instance completes one.
  const created = await fetch(`${first.url}${resumableUploadsPath}`, {
    method: 'POST',
    headers: {
      ...bearer(token),
      ...tus,
      'upload-length': String(bytes.length),
      'upload-metadata': metadata,
      'content-type': 'application/offset+octet-stream',
    },
    body: new Uint8Array(bytes.subarray(0, half)),
  });
  expect(created.status).toBe(201);
  const path = created.headers.get('location')!;
  const head = await fetch(`${second.url}${path}`, { method: 'HEAD', headers: { ...bearer(token), ...tus } });
  expect(head.status).toBe(200);
  const offset = Number(head.headers.get('upload-offset'));
  expect(offset).toBe(half);

  const { done } = tusUpload(second.url, token, bytes, {}, { uploadUrl: `${second.url}${path}` });
  const result = await done;
  const asset = assetEnvelopeSchema.parse(result.body).asset;
  expect(asset.size).toBe(bytes.length);
  // The first instance answers the same asset for the same upload.
  const again = await fetch(`${first.url}${path}`, { headers: bearer(token) });
  expect(assetEnvelopeSchema.parse(await again.json()).asset.id).toBe(asset.id);
  const { url } = (await (
    await fetch(`${first.url}/v2/core/assets/${asset.id}/download_url`, { headers: bearer(token) })
  ).json()) as { url: string };
  expect(sha256(Buffer.from(await (await fetch(url)).arrayBuffer()))).toBe(sha256(bytes));
});
