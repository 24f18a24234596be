import { randomBytes } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { assetEnvelopeSchema } from '../../../shared/assets/asset';
import { childPlatformFixture } from '../../testing/child-platform';
import { pdf, sha256 } from '../../testing/files';
import { bearer, tokensFor, type TestPlatform } from '../../testing/platform-server';
import { tusTestEnv, tusUploadAcrossRestart } from '../../testing/tus-client';

const child = childPlatformFixture('platform-tus-restart-', tusTestEnv());
afterAll(() => child.dispose());

it('continues an upload after the platform is killed and started again mid-way, from the bytes it kept', async () => {
  const platform = (await child.start()) as TestPlatform;
  const { access_token } = await tokensFor(platform, 'issuer@demo.test');
  const head = await pdf('Restarted');
  const bytes = Buffer.concat([head, Buffer.from('\n%'), randomBytes(6 * 1024 * 1024)]);
  const result = await tusUploadAcrossRestart(
    platform.url,
    access_token,
    bytes,
    { file_type: 'pitch_deck', assetable_type: 'Product', assetable_id: '1', name: 'Deck.pdf' },
    { at: 1 / 2, chunkSize: 512 * 1024, restart: () => child.kill().then(() => child.start()) },
  );
  const { offsets } = result;
  const asset = assetEnvelopeSchema.parse(result.body).asset;
  expect(asset.size).toBe(bytes.length);
  // After the restart the client went on from what the platform had kept, not from 0.
  const afterFirstZero = offsets.slice(1);
  expect(afterFirstZero.every((offset) => offset > 0)).toBe(true);
  expect(Math.max(...offsets)).toBeGreaterThanOrEqual(bytes.length / 2 - 512 * 1024);
  const { url } = (await (
    await fetch(`${platform.url}/v2/core/assets/${asset.id}/download_url`, { headers: bearer(access_token) })
  ).json()) as { url: string };
  expect(sha256(Buffer.from(await (await fetch(url)).arrayBuffer()))).toBe(sha256(bytes));
}, 120_000);
