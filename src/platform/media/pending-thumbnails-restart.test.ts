import sharp from 'sharp';
import { afterAll, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { childPlatformFixture } from '../testing/child-platform';
import { openDatabase } from '../db/database';
import { multipartBody } from '../testing/files';
import { deckPdf, slowPdf } from '../testing/pdf-files';
import { bearer, type TestPlatform, tokensFor } from '../testing/platform-server';
import { storageState } from '../testing/storage-state';
import { pollUntil } from '../testing/thumbnails';

/**
 * The platform as people run it, in a process of its own so that it can be killed. One worker, and
 * a time limit no render here reaches: the slow PDF holds the worker for as long as the test wants.
 */
const child = childPlatformFixture('platform-thumbnail-restart-', {
  PDF_THUMBNAIL_WORKERS: '1',
  PDF_THUMBNAIL_TIMEOUT_MS: '600000',
});
afterAll(() => child.dispose());

/** Renders begun for a thumbnail, as the platform counted them in its database. */
async function renderAttempts(thumbnailId: number): Promise<number> {
  const db = await openDatabase(await child.config());
  try {
    const row = await db
      .selectFrom('assets')
      .select('render_attempts')
      .where('id', '=', thumbnailId)
      .executeTakeFirst();
    return row?.render_attempts ?? -1;
  } finally {
    await db.destroy();
  }
}

/** Kills the platform once the slow PDF's render has begun (again): mid-render, every time. */
async function killDuringRender(thumbnailId: number, attempt: number) {
  await pollUntil(`render ${attempt} of thumbnail ${thumbnailId} to begin`, async () =>
    (await renderAttempts(thumbnailId)) >= attempt ? true : undefined,
  );
  await child.kill();
}

it('PT1 makes after a restart the thumbnails a crash left pending, and gives up a PDF that was being drawn at three crashes', async () => {
  const platform = (await child.start()) as TestPlatform;
  const { url } = platform;
  const issuer = async () => (await tokensFor(platform, 'issuer@demo.test')).access_token;
  let token = await issuer();
  const me = meSchema.parse(await (await fetch(`${url}/v2/core/me`, { headers: bearer(token) })).json());
  const productId = me.entities.find((e) => e.type === 'Product')!.id;
  const upload = async (name: string, bytes: Buffer): Promise<Asset> => {
    const response = await fetch(`${url}/v2/core/assets`, {
      method: 'POST',
      headers: bearer(token),
      body: multipartBody(
        { file_type: 'pitch_deck', assetable_type: 'Product', assetable_id: String(productId) },
        { name, bytes, type: 'application/pdf' },
      ),
    });
    expect(response.status).toBe(201);
    return assetEnvelopeSchema.parse(await response.json()).asset;
  };
  const get = async (id: number | string) => {
    const response = await fetch(`${url}/v2/core/assets/${id}`, { headers: bearer(token) });
    return {
      status: response.status,
      asset: response.ok ? assetEnvelopeSchema.parse(await response.json()).asset : undefined,
    };
  };

  // A PDF that takes pdf.js seconds of CPU (as one that crashes it would take the process down), and
  // a deck behind it in the one worker's queue.
  const stuck = await upload('stuck.pdf', slowPdf(3_000_000));
  const deck = await upload('deck.pdf', deckPdf(3));
  const stuckThumbnail = Number(stuck.thumbnail_id);
  const deckThumbnail = Number(deck.thumbnail_id);
  expect((await get(deckThumbnail)).asset?.pending).toBe(true);

  // Killed mid-render three times: the slow PDF's render begins at each start, the deck's never does.
  await killDuringRender(stuckThumbnail, 1);
  for (const attempt of [2, 3]) {
    await child.start();
    await killDuringRender(stuckThumbnail, attempt);
  }
  const killed = await storageState(await child.config());
  expect(killed.pendingKeys).toHaveLength(2);
  expect(await renderAttempts(deckThumbnail)).toBe(0);

  // The next start makes the deck's thumbnail and gives the slow PDF up instead of a fourth crash.
  await child.start();
  token = await issuer();
  const made = await pollUntil('the deck thumbnail to be made after the restart', async () => {
    const { asset } = await get(deckThumbnail);
    return asset && !asset.pending ? asset : undefined;
  });
  expect(made).toMatchObject({ content_type: 'image/png', width: 1024, height: 576 });
  const link = (await (
    await fetch(`${url}/v2/core/assets/${deckThumbnail}/download_url`, { headers: bearer(token) })
  ).json()) as { url: string };
  const image = await sharp(Buffer.from(await (await fetch(link.url)).arrayBuffer())).metadata();
  expect([image.format, image.width, image.height]).toEqual(['png', 1024, 576]);

  await pollUntil('the slow PDF to lose its thumbnail', async () =>
    (await get(stuck.id)).asset?.thumbnail_id === undefined ? true : undefined,
  );
  expect((await get(stuckThumbnail)).status).toBe(404);
  // The PDFs themselves are untouched, and the deck keeps its thumbnail.
  expect((await get(deck.id)).asset?.thumbnail_id).toBe(deck.thumbnail_id);

  // Nothing pending is left, every row has its file and every file its row.
  const state = await storageState(await child.config());
  expect(state.pendingKeys).toEqual([]);
  expect(state.rowKeys.every((key) => state.fileNames.includes(key))).toBe(true);
  expect(state.fileNames.every((key) => state.rowKeys.includes(key))).toBe(true);
}, 300_000);
