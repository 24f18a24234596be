import { afterAll, beforeAll, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { multipartBody } from '../testing/files';
import { deckPdf } from '../testing/pdf-files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { pollUntil, thumbnailGate } from '../testing/thumbnails';

// Several instances share the pending thumbnails (deploy/): an instance that starts (a rolling
// restart) must not draw again what another one is drawing, and must take up what a stopped one left.

/** A platform whose log this test reads: the lines saying how many pending thumbnails it took up. */
async function instance(shareWith?: TestPlatform, gate = thumbnailGate()) {
  const lines: string[] = [];
  const platform = await startPlatform(shareWith ? { PLATFORM_PUBLIC_URL: shareWith.config.publicUrl } : {}, {
    shareWith,
    thumbnailHooks: gate.at('beforeRender'),
    logger: { level: 'info', stream: { write: (line: string) => void lines.push(line) } },
  });
  const takenUp = () =>
    lines
      .map((line) => JSON.parse(line) as { msg: string; count?: number })
      .filter((entry) => entry.msg === 'making PDF thumbnails left pending')
      .reduce((sum, entry) => sum + entry.count!, 0);
  return { platform, gate, takenUp };
}

let first: Awaited<ReturnType<typeof instance>>;
const others: TestPlatform[] = [];
beforeAll(async () => {
  first = await instance();
});
// Instances sharing the first one's database close before it (it removes what they share).
afterAll(async () => {
  for (const other of others) await other.close();
  await first.platform.close();
});

it('leaves a thumbnail another instance is drawing to it, and takes up one whose instance stopped', async () => {
  const { platform } = first;
  const { access_token: token } = await tokensFor(platform, 'issuer@demo.test');
  const me = meSchema.parse(
    await (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(token) })).json(),
  );
  const productId = me.entities.find((e) => e.type === 'Product')!.id;
  first.gate.hold();
  const response = await fetch(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: bearer(token),
    body: multipartBody(
      { file_type: 'pitch_deck', assetable_type: 'Product', assetable_id: String(productId) },
      { name: 'deck.pdf', bytes: deckPdf(2), type: 'application/pdf' },
    ),
  });
  expect(response.status).toBe(201);
  const deck: Asset = assetEnvelopeSchema.parse(await response.json()).asset;
  const thumbnailId = Number(deck.thumbnail_id);
  // The first instance is drawing it (held before the render).
  await pollUntil('the first instance to begin the render', () =>
    first.gate.arrived.includes(thumbnailId) ? true : undefined,
  );

  // An instance starting meanwhile finds it pending, and leaves it to the first one.
  const second = await instance(platform);
  others.push(second.platform);
  expect(second.takenUp()).toBe(0);
  expect(second.gate.arrived).not.toContain(thumbnailId);

  // The first one stops before drawing it: the next instance to start draws it.
  await first.platform.app.close();
  const third = await instance(second.platform);
  others.push(third.platform);
  expect(third.takenUp()).toBe(1);
  const made = await pollUntil('the thumbnail to be made by the instance that took it up', async () => {
    const read = await fetch(`${third.platform.url}/v2/core/assets/${thumbnailId}`, {
      headers: bearer(token),
    });
    const { asset } = assetEnvelopeSchema.parse(await read.json());
    return asset.pending ? undefined : asset;
  });
  expect(made).toMatchObject({ content_type: 'image/png' });
  expect(third.gate.arrived).toEqual([thumbnailId]);
});
