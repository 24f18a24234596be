import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meSchema } from '../shared/api/me';
import { assetEnvelopeSchema } from '../shared/assets/asset';
import { configFor, type PlatformConfig } from './config/env';
import { startCluster, type TestCluster } from './testing/cluster';
import { multipartBody, pacedPost, sha256 } from './testing/files';
import { bearer, postForm, type TestPlatform, tokensFor } from './testing/platform-server';
import { storageState, sweepOnceOrphansAreOld } from './testing/storage-state';
import { pollUntil } from './testing/thumbnails';

/**
 * The scale-out set-up end to end (issue 15): `npm run cluster`'s own program starts two platform
 * instances on one PostgreSQL schema, one bucket and one Redis, behind nginx with deploy/'s
 * settings; the test talks to each instance and to nginx over HTTP, and kills one with SIGKILL.
 */
let cluster: TestCluster;
let config: PlatformConfig;
let a: TestPlatform;
let b: TestPlatform;

beforeAll(async () => {
  // Twenty uploads of one user at once, more than the per-user cap lets through by default.
  cluster = await startCluster(2, { UPLOADS_PER_USER: '30' });
  config = configFor({ DATA_DIR: join(cluster.dir, 'reader'), ...cluster.env });
  const [first, second] = cluster.state().instances.map(({ url }) => cluster.at(url));
  [a, b] = [first!, second!];
}, 300_000);

afterAll(() => cluster?.stop(), 120_000);

const me = (url: string, token: string) => fetch(`${url}/v2/core/me`, { headers: bearer(token) });

async function uploadCsv(url: string, token: string, name: string, bytes: Buffer) {
  return fetch(`${url}/v2/core/assets`, {
    method: 'POST',
    headers: bearer(token),
    body: multipartBody(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name, bytes },
    ),
  });
}

/** The bytes behind an asset's download URL, fetched from `via` (an instance, or nginx). */
async function download(via: string, token: string, id: number) {
  const link = (await (
    await fetch(`${via}/v2/core/assets/${id}/download_url`, { headers: bearer(token) })
  ).json()) as { url: string };
  const url = new URL(link.url);
  const fetched = await fetch(`${via}${url.pathname}${url.search}`);
  expect(fetched.status).toBe(200);
  return Buffer.from(await fetched.arrayBuffer());
}

describe('two instances behind nginx on one PostgreSQL, one bucket and one Redis', () => {
  it('signs in through one instance and takes its token on the other, and through nginx', async () => {
    const { access_token } = await tokensFor(a, 'issuer@demo.test');
    const onB = await me(b.url, access_token);
    expect(onB.status).toBe(200);
    expect(meSchema.parse(await onB.json()).user.email).toBe('issuer@demo.test');
    expect((await me(cluster.state().nginx, access_token)).status).toBe(200);
  });

  it('stores an upload through one instance and delivers the same bytes through the other', async () => {
    const { access_token } = await tokensFor(b, 'issuer@demo.test');
    const bytes = Buffer.from(`id,value\n${randomBytes(200_000).toString('hex')}\n`);
    const created = await uploadCsv(a.url, access_token, 'through-a.csv', bytes);
    expect(created.status).toBe(201);
    const { asset } = assetEnvelopeSchema.parse(await created.json());
    expect(sha256(await download(b.url, access_token, asset.id))).toBe(sha256(bytes));
    expect(sha256(await download(cluster.state().nginx, access_token, asset.id))).toBe(sha256(bytes));
  });

  it('refuses on one instance a token revoked on the other, from the first request after the answer', async () => {
    const { access_token, refresh_token } = await tokensFor(a, 'investor@demo.test');
    // B has checked (and cached) the token.
    expect((await me(b.url, access_token)).status).toBe(200);
    const revoked = await postForm(`${a.url}/v2/core/oauth/revoke`, { ...a.webClient, token: refresh_token });
    expect(revoked.status).toBe(200);
    expect((await me(b.url, access_token)).status).toBe(401);
    expect((await me(cluster.state().nginx, access_token)).status).toBe(401);
  });

  it('keeps answering while one instance is killed during twenty uploads; every 201 is stored whole', async () => {
    const { access_token } = await tokensFor(a, 'issuer@demo.test');
    const victim = cluster.state().instances[1]!;
    const files = Array.from({ length: 20 }, (_, i) =>
      Buffer.from(`id,value\n${i},${randomBytes(600_000).toString('hex')}\n`),
    );
    const answered = new Map<number, string>();
    const uploads = files.map(async (bytes, i) => {
      try {
        // Each at its own pace (0.5 s for the first, 0.4 s more for each next one), so that when the
        // first ones have been answered the others are still arriving, on both instances.
        const response = await pacedPost(
          `${cluster.state().nginx}/v2/core/assets`,
          access_token,
          multipartBody(
            { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
            { name: `upload-${i}.csv`, bytes },
          ),
          500 + 400 * i,
        );
        if (response.status === 201)
          answered.set(assetEnvelopeSchema.parse(await response.json()).asset.id, sha256(bytes));
      } catch {
        // Cut off with the instance: the client never heard 201, so nothing is promised.
      }
    });
    // The surviving instance is asked all along.
    const survivorAnswers: number[] = [];
    let uploading = true;
    const asking = (async () => {
      while (uploading) {
        survivorAnswers.push((await me(a.url, access_token)).status);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    await pollUntil('a few uploads to be answered', () => (answered.size >= 3 ? true : undefined));
    process.kill(victim.pid, 'SIGKILL');
    await Promise.all(uploads);
    uploading = false;
    await asking;

    expect(survivorAnswers.length).toBeGreaterThan(0);
    expect(survivorAnswers.every((status) => status === 200)).toBe(true);
    // nginx sends everything to the survivor now.
    for (let i = 0; i < 4; i++) expect((await me(cluster.state().nginx, access_token)).status).toBe(200);
    expect(answered.size).toBeGreaterThanOrEqual(3);
    // Some were cut off with the killed instance (nginx never sends a POST twice).
    expect(answered.size).toBeLessThan(files.length);
    for (const [id, expected] of answered)
      expect(sha256(await download(cluster.state().nginx, access_token, id))).toBe(expected);

    // What the killed instance was writing: at most objects and unfinished uploads without rows,
    // which the sweep removes once they are old enough to be nobody's upload in flight.
    await sweepOnceOrphansAreOld(config);
    const state = await storageState(config);
    expect(state.temporary).toBe(0);
    expect(state.fileNames.every((key) => state.rowKeys.includes(key))).toBe(true);
    expect(state.rowKeys.every((key) => state.fileNames.includes(key))).toBe(true);
  }, 240_000);
});
