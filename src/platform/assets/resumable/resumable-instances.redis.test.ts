import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resumableUploadsPath } from '../../../shared/api/resumable-uploads';
import { assetEnvelopeSchema } from '../../../shared/assets/asset';
import { pdf, sha256 } from '../../testing/files';
import { bearer, startPlatform, tokensFor, type TestPlatform } from '../../testing/platform-server';
import { startRadosGateway, type RadosGateway } from '../../testing/radosgw';
import { testRedisEnv } from '../../testing/redis';
import { resumableUploadTraces } from '../../testing/stored-files';
import { uploadMetadataHeader } from '../../testing/tus-client';

/**
 * Two instances of one platform on one bucket (a real S3 server, testing/radosgw.ts), one database
 * and one Redis, as behind a load balancer: an upload begun on one goes on on the other, and two
 * PATCHes to one upload at once on both are written one at a time (the Redis locker).
 */
let gateway: RadosGateway;
let a: TestPlatform;
let b: TestPlatform;
let token: string;

beforeAll(async () => {
  gateway = await startRadosGateway();
  const env = {
    SIGNING_KEY: randomBytes(32).toString('base64url'),
    ...gateway.platformEnv(await gateway.createBucket()),
  };
  a = await startPlatform({ ...env, ...testRedisEnv() });
  b = await startPlatform({ ...env, PLATFORM_PUBLIC_URL: a.config.publicUrl }, { shareWith: a });
  token = (await tokensFor(a, 'issuer@demo.test')).access_token;
}, 120_000);
afterAll(async () => {
  await b?.close();
  await a?.close();
  await gateway?.stop();
});

const tus = { 'tus-resumable': '1.0.0' };
const metadata = uploadMetadataHeader({
  file_type: 'pitch_deck',
  assetable_type: 'Product',
  assetable_id: '1',
  name: 'Deck.pdf',
});

async function create(on: TestPlatform, length: number) {
  const created = await fetch(`${on.url}${resumableUploadsPath}`, {
    method: 'POST',
    headers: { ...bearer(token), ...tus, 'upload-length': String(length), 'upload-metadata': metadata },
  });
  expect(created.status).toBe(201);
  return created.headers.get('location')!.split('/').pop()!;
}

const patch = (on: TestPlatform, id: string, offset: number, bytes: Buffer) =>
  fetch(`${on.url}${resumableUploadsPath}/${id}`, {
    method: 'PATCH',
    headers: {
      ...bearer(token),
      ...tus,
      'upload-offset': String(offset),
      'content-type': 'application/offset+octet-stream',
    },
    body: new Uint8Array(bytes),
  });

const offsetOn = async (on: TestPlatform, id: string) =>
  Number(
    (
      await fetch(`${on.url}${resumableUploadsPath}/${id}`, {
        method: 'HEAD',
        headers: { ...bearer(token), ...tus },
      })
    ).headers.get('upload-offset'),
  );

/** A real PDF of `bytes` bytes, padded with a comment. */
async function deck(bytes: number) {
  const head = await pdf('Across instances');
  return Buffer.concat([head, Buffer.from('\n%'), randomBytes(bytes - head.length - 2)]);
}

it('continues on one instance an upload begun on the other, from the offset the bucket keeps', async () => {
  const bytes = await deck(10 * 1024 * 1024);
  const id = await create(a, bytes.length);
  const half = 9 * 1024 * 1024;
  expect((await patch(a, id, 0, bytes.subarray(0, half))).status).toBe(204);
  expect(await offsetOn(b, id)).toBe(half);
  const finished = await patch(b, id, half, bytes.subarray(half));
  expect(finished.status).toBe(200);
  const { asset } = assetEnvelopeSchema.parse(await finished.json());
  const { url } = (await (
    await fetch(`${a.url}/v2/core/assets/${asset.id}/download_url`, { headers: bearer(token) })
  ).json()) as { url: string };
  expect(sha256(Buffer.from(await (await fetch(url)).arrayBuffer()))).toBe(sha256(bytes));
  expect(await resumableUploadTraces(a, id)).toEqual([]);
}, 120_000);

it('writes two PATCHes at one offset sent at once to both instances one at a time: one is taken, the other refused', async () => {
  const bytes = await deck(6 * 1024 * 1024);
  const id = await create(a, bytes.length * 2);
  const answers = await Promise.all([patch(a, id, 0, bytes), patch(b, id, 0, bytes)]);
  const statuses = answers.map((answer) => answer.status).sort();
  // The one that waited for the lock finds the offset moved (409) or the lock still held (423).
  expect(statuses[0]).toBe(204);
  expect([409, 423]).toContain(statuses[1]);
  expect(await offsetOn(a, id)).toBe(bytes.length);
  expect(await offsetOn(b, id)).toBe(bytes.length);
}, 120_000);
