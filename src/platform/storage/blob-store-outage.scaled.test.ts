import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bucketContents } from '../testing/blob-stores';
import { csv, multipartBody, pacedPost } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { s3Endpoint, s3TestEnv, testS3Client } from '../testing/s3';
import { startTcpProxy, type TcpProxy } from '../testing/tcp-proxy';

/**
 * What a client meets while the bucket is away (refused, silent, or resetting every connection,
 * through a TCP proxy in front of the tests' S3 server), and that the same process serves again
 * once it is back: uploads, downloads and deletes answer at once or within S3_REQUEST_TIMEOUT_MS,
 * never 500, never a hang, and a failed upload leaves its Idempotency-Key free for the retry.
 */
const requestTimeoutMs = 1000;
/** The timeout, and room for a busy machine. */
const answeredWithinMs = 8_000;

let proxy: TcpProxy;
let platform: TestPlatform;
let token: string;
let bucket: string;

beforeAll(async () => {
  const direct = new URL(s3Endpoint());
  proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port) });
  const env = await s3TestEnv();
  bucket = env.S3_BUCKET!;
  platform = await startPlatform({
    ...env,
    S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`,
    S3_REQUEST_TIMEOUT_MS: String(requestTimeoutMs),
  });
  token = (await tokensFor(platform, 'issuer@demo.test')).access_token;
});
afterAll(async () => {
  await proxy?.restore();
  await platform?.close();
  await proxy?.close();
});

const bytes = csv();
const api = (path: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, { ...init, headers: { ...bearer(token), ...init.headers } });
const upload = (idempotencyKey: string) =>
  api('/v2/core/assets', {
    method: 'POST',
    headers: { 'idempotency-key': idempotencyKey },
    body: multipartBody(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name: 'figures.csv', bytes },
    ),
  });
async function uploaded(idempotencyKey: string): Promise<number> {
  const answer = await upload(idempotencyKey);
  expect(answer.status).toBe(201);
  return ((await answer.json()) as { asset: { id: number } }).asset.id;
}
async function download(id: number) {
  const { url } = (await (await api(`/v2/core/assets/${id}/download_url`)).json()) as { url: string };
  return fetch(url);
}

async function expectUnavailableInTime(request: () => Promise<Response>) {
  const started = performance.now();
  const answer = await request();
  expect(performance.now() - started).toBeLessThan(answeredWithinMs);
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(await answer.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
}

/** /readyz's answer: its status, and the blob store's state. */
const readiness = async () => {
  const answer = await fetch(`${platform.url}/readyz`);
  const body = (await answer.json()) as { backends: { blob_store: string } };
  return `${answer.status} ${body.backends.blob_store}`;
};

describe('the bucket unavailable while the platform runs', () => {
  it.each([
    ['refuses connections', () => proxy.cut()],
    ['accepts connections but never answers', () => proxy.stall()],
    ['resets every connection', () => proxy.reset()],
  ])(
    'answers uploads and downloads 503 with Retry-After when the bucket %s, and serves again once it is back',
    async (fault, cause) => {
      const stored = await uploaded(`before-${fault.replaceAll(' ', '-')}`);
      const key = `during-${fault.replaceAll(' ', '-')}`;
      await cause();
      try {
        await expectUnavailableInTime(() => upload(key));
        await expectUnavailableInTime(() => download(stored));
        // Out of the load balancer's rotation meanwhile; alive all along.
        await expect.poll(readiness).toBe('503 down');
        expect((await fetch(`${platform.url}/livez`)).status).toBe(200);
      } finally {
        await proxy.restore();
      }
      // Back by itself; the failed upload's key is free for its retry (no 409).
      await expect.poll(async () => (await download(stored)).status, { timeout: 20_000 }).toBe(200);
      await expect.poll(readiness, { timeout: 20_000 }).toBe('200 up');
      expect(Buffer.from(await (await download(stored)).arrayBuffer())).toEqual(bytes);
      const retried = await uploaded(key);
      expect((await download(retried)).status).toBe(200);
    },
  );

  it('aborts the multipart upload of an upload the bucket failed, once the bucket is back', async () => {
    const client = testS3Client();
    try {
      const unfinished = async () => (await bucketContents(client, bucket)).uploads.length;
      const before = (await bucketContents(client, bucket)).objects;
      // 12 MB over 6 s: lib-storage opens a multipart upload at the first 5 MB.
      const answer = pacedPost(
        `${platform.url}/v2/core/assets`,
        token,
        multipartBody(
          { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
          { name: 'large.csv', bytes: Buffer.alloc(12 * 1024 * 1024, 'a') },
        ),
        6000,
        { 'idempotency-key': 'multipart-during-reset' },
      );
      await expect.poll(unfinished).toBe(1);
      proxy.reset();
      try {
        expect((await answer).status).toBe(503);
      } finally {
        await proxy.restore();
      }
      await expect.poll(unfinished, { timeout: 20_000 }).toBe(0);
      // Nothing of it was kept.
      expect((await bucketContents(client, bucket)).objects).toEqual(before);
    } finally {
      client.destroy();
    }
  });

  it('deletes an asset while the bucket is silent: its file is left for the sweep', async () => {
    const id = await uploaded('to-delete');
    proxy.stall();
    try {
      const started = performance.now();
      const answer = await api(`/v2/core/assets/${id}`, { method: 'DELETE' });
      expect(performance.now() - started).toBeLessThan(answeredWithinMs);
      expect(answer.status).toBe(204);
    } finally {
      await proxy.restore();
    }
    expect((await api(`/v2/core/assets/${id}`)).status).toBe(404);
  });
});
