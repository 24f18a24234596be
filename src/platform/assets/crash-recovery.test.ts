import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { multipartBody, pacedPost, sha256 } from '../testing/files';
import { bearer, type TestPlatform, tokensFor } from '../testing/platform-server';
import { storageState, sweepOnceOrphansAreOld, uploadsUnderWay } from '../testing/storage-state';
import { childPlatformFixture } from '../testing/child-platform';
import { pollUntil } from '../testing/thumbnails';

// U13 keeps thirty uploads of one user in flight: more than the per-user cap (H8) lets through.
const child = childPlatformFixture('platform-crash-', { UPLOADS_PER_USER: '30' });
// H7 on a platform of its own: the places U13's killed uploads held in the cap (leased, on the
// scale-out backends) must not count as its upload under way.
const h7Child = childPlatformFixture('platform-crash-h7-', {});
afterAll(() => Promise.all([child.dispose(), h7Child.dispose()]));

// U13: the process killed with SIGKILL in the middle of concurrent uploads, then restarted.
it('keeps every asset answered 201 intact after a SIGKILL, with no row missing its file', async () => {
  const platform = (await child.start()) as TestPlatform;
  const { url } = platform;
  const { access_token } = await tokensFor(platform, 'issuer@demo.test');

  const files = Array.from({ length: 30 }, () =>
    Buffer.concat([Buffer.from('id,value\n'), Buffer.from(randomBytes(1_500_000).toString('hex'))]),
  );
  const answered = new Map<number, string>();
  const uploads = files.map(async (bytes, i) => {
    try {
      // Each upload streams at its own pace (0.3 s for the first, 0.1 s more for each next one), so
      // that when the first ones have been answered the others are still arriving.
      const response = await pacedPost(
        `${url}/v2/core/assets`,
        access_token,
        multipartBody(
          { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
          { name: `data-${i}.csv`, bytes },
        ),
        300 + 100 * i,
      );
      if (response.status === 201)
        answered.set(assetEnvelopeSchema.parse(await response.json()).asset.id, sha256(bytes));
    } catch {
      // Cut off by the kill: the client never heard 201, so nothing is promised.
    }
  });
  // Kill once a few uploads have been answered and others are still streaming (a busy machine, as
  // under the whole suite on 2 cores, may take many seconds to answer the first three). The
  // uploads pace themselves by the same clock as this wait, so a slow machine slows both.
  const deadline = Date.now() + 120_000;
  while (answered.size < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  await child.kill();
  await Promise.all(uploads);
  expect(answered.size).toBeGreaterThan(0);
  expect(answered.size).toBeLessThan(files.length);

  await child.start();
  const config = await child.config();
  await sweepOnceOrphansAreOld(config);
  const state = await storageState(config);
  expect(state.temporary).toBe(0);
  // Every row has its file, and every file has its row.
  expect(state.rowKeys.every((key) => state.fileNames.includes(key))).toBe(true);
  expect(state.fileNames.every((key) => state.rowKeys.includes(key))).toBe(true);

  const { access_token: fresh } = await tokensFor(platform, 'issuer@demo.test');
  for (const [id, expected] of answered) {
    const link = (await (
      await fetch(`${url}/v2/core/assets/${id}/download_url`, { headers: bearer(fresh) })
    ).json()) as { url: string };
    const bytes = new Uint8Array(await (await fetch(link.url)).arrayBuffer());
    expect(sha256(bytes)).toBe(expected);
  }
  // Two starts of the platform (up to a minute each on a busy machine) and the wait above.
}, 360_000);

// H7: an upload cut off by a crash leaves its Idempotency-Key "in progress"; after the restart, the
// client's retry with the same key must make the asset (once), not answer 409 for a day.
it('H7 lets a retry with the same Idempotency-Key succeed after a SIGKILL mid-upload, making one asset', async () => {
  const platform = (await h7Child.start()) as TestPlatform;
  const { url } = platform;
  const { access_token } = await tokensFor(platform, 'issuer@demo.test');

  const bytes = Buffer.concat([
    Buffer.from('id,value\n'),
    Buffer.from(randomBytes(1_000_000).toString('hex')),
  ]);
  const form = () =>
    multipartBody(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name: 'interrupted.csv', bytes },
    );
  const key = { 'idempotency-key': `retry-${randomBytes(8).toString('hex')}` };
  // Paced over minutes, so it is certainly still arriving when the kill comes: as soon as the
  // platform has started writing the file.
  const first = pacedPost(`${url}/v2/core/assets`, access_token, form(), 300_000, key).catch(() => undefined);
  const config = await h7Child.config();
  await expect.poll(() => uploadsUnderWay(config), { timeout: 60_000 }).toBe(1);
  await h7Child.kill();
  expect(await first).toBeUndefined();

  await h7Child.start();
  const retry = async () =>
    fetch(`${url}/v2/core/assets`, {
      method: 'POST',
      headers: { ...bearer(access_token), ...key },
      body: form(),
    });
  // Where several instances share the platform (Redis), the key stays the killed one's until its
  // lease runs out (30 s) and is answered 409 meanwhile: retried a few seconds apart, as a person
  // pressing Retry would. On one instance, the start released it and the first retry is taken.
  const retried = await pollUntil(
    'a retry to be taken',
    async () => {
      const response = await retry();
      if (response.status !== 409) return response;
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      return undefined;
    },
    90_000,
  );
  expect(retried.status, await retried.clone().text()).toBe(201);
  const asset = assetEnvelopeSchema.parse(await retried.json()).asset;
  // Retried once more, the key answers the same asset: there is one.
  const again = await retry();
  expect(again.status).toBe(201);
  expect(assetEnvelopeSchema.parse(await again.json()).asset.id).toBe(asset.id);
  const list = (await (
    await fetch(`${url}/v2/core/investments/1/assets`, { headers: bearer(access_token) })
  ).json()) as { assets: { name: string }[] };
  expect(list.assets.filter((a) => a.name === 'interrupted.csv')).toHaveLength(1);
}, 240_000);
