import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { resumableUploadsPath } from '../../../shared/api/resumable-uploads';
import { assetEnvelopeSchema } from '../../../shared/assets/asset';
import { configFor } from '../../config/env';
import { childPlatformFixture } from '../../testing/child-platform';
import { pdf, sha256 } from '../../testing/files';
import { bearer, startPlatform, tokensFor, type TestPlatform } from '../../testing/platform-server';
import { startRadosGateway, type RadosGateway } from '../../testing/radosgw';
import { resumableUploadTraces } from '../../testing/stored-files';
import { tusUploadAcrossRestart, untilSwept, uploadMetadataHeader } from '../../testing/tus-client';

/**
 * Resumable uploads with `BLOB_STORE=s3`, on a real S3 server with ListParts (testing/radosgw.ts):
 * the unfinished bytes wait in the bucket (@tus/s3-store), so a platform killed mid-way and started
 * again continues from what the bucket holds, and the finished file leaves no trace of its upload.
 */
let gateway: RadosGateway;
let child: ReturnType<typeof childPlatformFixture>;
let s3Env: Record<string, string>;

beforeAll(async () => {
  gateway = await startRadosGateway();
  s3Env = gateway.platformEnv(await gateway.createBucket());
  child = childPlatformFixture('platform-tus-s3-', s3Env);
}, 120_000);
afterAll(async () => {
  await child?.dispose();
  await gateway?.stop();
});

it('continues an upload kept in the bucket after the platform is killed mid-way, and leaves no trace of it', async () => {
  const platform = (await child.start()) as TestPlatform;
  const { access_token } = await tokensFor(platform, 'issuer@demo.test');
  const head = await pdf('Resumed from the bucket');
  // Past @tus/s3-store's 8 MB part: one part complete in the bucket when the platform dies.
  const bytes = Buffer.concat([head, Buffer.from('\n%'), randomBytes(12 * 1024 * 1024)]);
  const result = await tusUploadAcrossRestart(
    platform.url,
    access_token,
    bytes,
    { file_type: 'pitch_deck', assetable_type: 'Product', assetable_id: '1', name: 'Deck.pdf' },
    { at: 3 / 4, chunkSize: 1024 * 1024, restart: () => child.kill().then(() => child.start()) },
  );
  const { offsets } = result;
  const asset = assetEnvelopeSchema.parse(result.body).asset;
  expect(asset.size).toBe(bytes.length);
  // After the restart the client went on from the offset the bucket gave (ListParts), not from 0.
  expect(offsets.slice(1).every((offset) => offset > 0)).toBe(true);
  expect(Math.max(...offsets)).toBeGreaterThanOrEqual(8 * 1024 * 1024);
  const { url } = (await (
    await fetch(`${platform.url}/v2/core/assets/${asset.id}/download_url`, { headers: bearer(access_token) })
  ).json()) as { url: string };
  expect(sha256(Buffer.from(await (await fetch(url)).arrayBuffer()))).toBe(sha256(bytes));
  // The upload's objects and its multipart upload are gone from the bucket; the file is a blob now.
  const uploadId = result.uploadUrl.split('/').pop()!;
  const stored = { config: configFor({ DATA_DIR: '/nonexistent', ...s3Env }), dataDir: '/nonexistent' };
  expect(await resumableUploadTraces(stored, uploadId)).toEqual([]);
}, 180_000);

it('sweeps an unfinished upload from the bucket once past its Upload-Expires, its incomplete part too', async () => {
  const short = await startPlatform({ ...s3Env, RESUMABLE_UPLOAD_EXPIRY_MS: '1500' });
  try {
    const token = (await tokensFor(short, 'issuer@demo.test')).access_token;
    const metadata = {
      file_type: 'pitch_deck',
      assetable_type: 'Product',
      assetable_id: '1',
      name: 'Deck.pdf',
    };
    const created = await fetch(`${short.url}${resumableUploadsPath}`, {
      method: 'POST',
      headers: {
        ...bearer(token),
        'tus-resumable': '1.0.0',
        'upload-length': '2000',
        'upload-metadata': uploadMetadataHeader(metadata),
        'content-type': 'application/offset+octet-stream',
      },
      // Fewer bytes than a part: @tus/s3-store keeps them as an incomplete part, `<id>.part`.
      body: new Uint8Array((await pdf('Half')).subarray(0, 300)),
    });
    expect(created.status).toBe(201);
    const url = new URL(created.headers.get('location')!, short.url).href;
    const traces = () => resumableUploadTraces(short, url.split('/').pop()!);
    expect(await traces()).toContain(`${url.split('/').pop()}.part`);
    const { status, left } = await untilSwept(url, token, traces);
    expect(status).toBe(404);
    expect(left).toEqual([]);
  } finally {
    await short.close();
  }
}, 60_000);
