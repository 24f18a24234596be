import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { multipartBody, png, sha256 } from '../testing/files';
import {
  deckPdf,
  encryptedPdf,
  garbagePdf,
  redHalfPdf,
  slowPdf,
  threePagePdf,
  truncatedPdf,
} from '../testing/pdf-files';
import { bearer, startPlatform, tokensFor } from '../testing/platform-server';

/** A platform of its own, with its log lines kept for reading. */
async function platformWithLog(env: Record<string, string> = {}) {
  const logs: string[] = [];
  // A render time limit far above what the small test PDFs take on a busy machine.
  const platform = await startPlatform(
    { PDF_THUMBNAIL_TIMEOUT_MS: '60000', ...env },
    {
      logger: { level: 'warn', stream: { write: (line: string) => void logs.push(line) } },
    },
  );
  const issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  const investor = (await tokensFor(platform, 'investor@demo.test')).access_token;
  const me = meSchema.parse(
    await (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(issuer) })).json(),
  );
  const productId = me.entities.find((e) => e.type === 'Product')!.id;
  const investmentId = me.entities.find((e) => e.type === 'Investment')!.id;
  return { platform, logs, issuer, investor, productId, investmentId };
}
type Setup = Awaited<ReturnType<typeof platformWithLog>>;

function client(setup: () => Setup) {
  const api = (path: string, token: string, init: RequestInit = {}) =>
    fetch(`${setup().platform.url}${path}`, {
      ...init,
      headers: { ...bearer(token), ...(init.headers as Record<string, string>) },
    });
  const upload = async (
    bytes: Uint8Array,
    fields: Record<string, string> = {},
    headers: Record<string, string> = {},
  ): Promise<Asset> => {
    const response = await api('/v2/core/assets', setup().issuer, {
      method: 'POST',
      headers,
      body: multipartBody(
        {
          file_type: 'pitch_deck',
          assetable_type: 'Product',
          assetable_id: String(setup().productId),
          ...fields,
        },
        { name: 'deck.pdf', bytes, type: 'application/pdf' },
      ),
    });
    expect(response.status, await response.clone().text()).toBe(201);
    return assetEnvelopeSchema.parse(await response.json()).asset;
  };
  const get = async (id: number | string, token = setup().issuer) => {
    const response = await api(`/v2/core/assets/${id}`, token);
    return {
      status: response.status,
      asset: response.ok ? assetEnvelopeSchema.parse(await response.json()).asset : undefined,
    };
  };
  const downloadUrl = async (id: number | string, token = setup().issuer) => {
    const response = await api(`/v2/core/assets/${id}/download_url`, token);
    expect(response.status).toBe(200);
    return ((await response.json()) as { url: string }).url;
  };
  /** Every file in the platform's blob store (committed ones, not staging leftovers). */
  const storedKeys = () => {
    const root = join(setup().platform.dataDir, 'blobs');
    return readdirSync(root)
      .filter((folder) => folder !== 'tmp')
      .flatMap((folder) => readdirSync(join(root, folder)));
  };
  return { api, upload, get, downloadUrl, storedKeys };
}

/** RGB of the pixel at (x, y) of an image. */
async function pixel(image: Buffer, x: number, y: number) {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at], data[at + 1], data[at + 2]];
}

/** Log lines (pino JSON) that say a PDF went without a thumbnail. */
const thumbnailWarnings = (logs: string[]) =>
  logs
    .map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string })
    .filter((entry) => entry.msg === 'PDF uploaded without a thumbnail');

describe('PDF thumbnails through POST /v2/core/assets', () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await platformWithLog();
  });
  afterAll(() => setup.platform.close());
  const { api, upload, get, downloadUrl, storedKeys } = client(() => setup);

  it('renders page 1 into a thumbnail asset whose id comes back as thumbnail_id', async () => {
    const before = storedKeys().length;
    const parent = await upload(threePagePdf());
    expect(parent.thumbifiable).toBe(true);
    expect(typeof parent.thumbnail_id).toBe('string');
    expect(parent.thumbnail_id).toMatch(/^\d+$/);
    // Later reads carry it too.
    expect((await get(parent.id)).asset!.thumbnail_id).toBe(parent.thumbnail_id);

    const { status, asset: thumbnail } = await get(parent.thumbnail_id!);
    expect(status).toBe(200);
    expect(thumbnail).toMatchObject({
      id: Number(parent.thumbnail_id),
      name: 'deck (thumbnail).png',
      file_type: 'pitch_deck',
      assetable: { type: 'Product', id: setup.productId },
      private: false,
      thumbifiable: false,
      content_type: 'image/png',
      width: 791,
      height: 1024,
    });
    expect(thumbnail!.thumbnail_id).toBeUndefined();
    expect(storedKeys().length).toBe(before + 2);

    const file = await fetch(await downloadUrl(parent.thumbnail_id!));
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const image = Buffer.from(await file.arrayBuffer());
    expect(image.length).toBe(thumbnail!.size);
    // Page 1 of the file: red on the left half, white paper on the right (page 2 is blue, 3 green).
    expect(await pixel(image, 100, 500)).toEqual([255, 0, 0]);
    expect(await pixel(image, 690, 500)).toEqual([255, 255, 255]);
  });

  it('keeps the thumbnail out of the entity sideload and its links.assets list', async () => {
    const parent = await upload(redHalfPdf());
    const entity = (await (await api(`/v2/core/products/${setup.productId}`, setup.issuer)).json()) as {
      product: { links: { assets: string } };
      assets: Asset[];
    };
    const listed = (await (await api(entity.product.links.assets, setup.issuer)).json()) as {
      assets: Asset[];
    };
    for (const assets of [entity.assets, listed.assets]) {
      const ids = assets.map((a) => a.id);
      expect(ids).toContain(parent.id);
      expect(ids).not.toContain(Number(parent.thumbnail_id));
      expect(assets.find((a) => a.id === parent.id)!.thumbnail_id).toBe(parent.thumbnail_id);
      // No listed asset is anybody's thumbnail.
      const thumbnails = new Set(
        assets
          .map((a) => a.thumbnail_id)
          .filter(Boolean)
          .map(Number),
      );
      expect(ids.filter((id) => thumbnails.has(id))).toEqual([]);
    }
  });

  it("shows the thumbnail to whoever may see the parent, and follows the parent's privacy", async () => {
    const open = await upload(redHalfPdf());
    expect((await get(open.thumbnail_id!, setup.investor)).status).toBe(200);
    expect((await fetch(await downloadUrl(open.thumbnail_id!, setup.investor))).status).toBe(200);

    const hidden = await upload(redHalfPdf(), { private: 'true' });
    const thumbnail = (await get(hidden.thumbnail_id!)).asset!;
    expect(thumbnail.private).toBe(true);
    expect((await get(hidden.thumbnail_id!, setup.investor)).status).toBe(404);

    // Making the parent public makes its thumbnail public with it.
    const response = await api(`/v2/core/assets/${hidden.id}`, setup.issuer, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: { private: false } }),
    });
    expect(response.status).toBe(200);
    expect((await get(hidden.thumbnail_id!, setup.investor)).asset!.private).toBe(false);
  });

  it('lets the owner change or delete a thumbnail only through its parent', async () => {
    const parent = await upload(redHalfPdf());
    const put = await api(`/v2/core/assets/${parent.thumbnail_id}`, setup.issuer, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: { private: true } }),
    });
    expect(put.status).toBe(403);
    const del = await api(`/v2/core/assets/${parent.thumbnail_id}`, setup.issuer, { method: 'DELETE' });
    expect(del.status).toBe(403);
    expect((await get(parent.thumbnail_id!, setup.investor)).status).toBe(200);
  });

  it('makes no thumbnail of an image in a thumbifiable slot, nor of a PDF in a non-thumbifiable one', async () => {
    const before = storedKeys().length;
    const image = await upload(await png(300, 200), {});
    expect(image).toMatchObject({ thumbifiable: true, content_type: 'image/png' });
    expect(image.thumbnail_id).toBeUndefined();
    const document = await upload(redHalfPdf(), {
      file_type: 'additional_document',
      assetable_type: 'Investment',
      assetable_id: String(setup.investmentId),
    });
    expect(document).toMatchObject({ thumbifiable: false, content_type: 'application/pdf' });
    expect(document.thumbnail_id).toBeUndefined();
    expect(storedKeys().length).toBe(before + 2);
  });

  it('still takes encrypted and damaged PDFs, without a thumbnail, logging why and never the content', async () => {
    setup.logs.length = 0;
    for (const bytes of [encryptedPdf(), garbagePdf(), truncatedPdf()]) {
      const before = storedKeys();
      const asset = await upload(bytes);
      expect(asset.thumbnail_id).toBeUndefined();
      expect((await get(asset.id)).asset!.thumbnail_id).toBeUndefined();
      // The file itself, and nothing else, was kept.
      expect(storedKeys().length).toBe(before.length + 1);
      const file = await fetch(await downloadUrl(asset.id));
      expect(sha256(new Uint8Array(await file.arrayBuffer()))).toBe(sha256(bytes));
    }
    const warnings = thumbnailWarnings(setup.logs);
    expect(warnings.map((w) => [w.level, w.reason])).toEqual([
      [40, 'encrypted'],
      [40, 'invalid_pdf'],
      [40, 'invalid_pdf'],
    ]);
    const logged = setup.logs.join('\n');
    expect(logged).not.toContain('%PDF');
    expect(logged).not.toContain(' re f');
  });

  it('deletes the thumbnail, its file and its download URLs with the parent', async () => {
    const parent = await upload(redHalfPdf());
    const thumbnail = (await get(parent.thumbnail_id!)).asset!;
    const thumbnailUrl = await downloadUrl(thumbnail.id);
    const blobPath = (key: string) => join(setup.platform.dataDir, 'blobs', key.slice(0, 2), key);
    expect(existsSync(blobPath(thumbnail.key))).toBe(true);

    expect((await api(`/v2/core/assets/${parent.id}`, setup.issuer, { method: 'DELETE' })).status).toBe(204);
    expect((await get(thumbnail.id)).status).toBe(404);
    // Ended like every URL of a deleted asset: the answer a forged URL gets (H2, H4).
    expect((await fetch(thumbnailUrl)).status).toBe(403);
    expect(existsSync(blobPath(thumbnail.key))).toBe(false);
    expect(existsSync(blobPath(parent.key))).toBe(false);
  });

  it('answers a retried create with the same thumbnail, and makes no second one', async () => {
    const before = storedKeys().length;
    const headers = { 'idempotency-key': 'thumbnail-retry-1' };
    const first = await upload(redHalfPdf(), { name: 'Retried deck' }, headers);
    // Same request again, byte for byte: the same answer.
    const bytes = Buffer.from(redHalfPdf());
    const second = await upload(bytes, { name: 'Retried deck' }, headers);
    expect(second.id).toBe(first.id);
    expect(second.thumbnail_id).toBe(first.thumbnail_id);
    expect(storedKeys().length).toBe(before + 2);
  });
});

describe('PDF thumbnails under limits', () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await platformWithLog({
      PDF_THUMBNAIL_WORKERS: '1',
      // Ample for an ordinary PDF on a busy machine, a third of what the slow one below needs on an
      // idle one.
      PDF_THUMBNAIL_TIMEOUT_MS: '20000',
      PDF_THUMBNAIL_MAX_BYTES: '100000',
    });
  });
  afterAll(() => setup.platform.close());
  const { api, upload, get, storedKeys } = client(() => setup);

  it('takes a PDF over the thumbnail size limit without a thumbnail', async () => {
    setup.logs.length = 0;
    const large = deckPdf(200);
    expect(large.length).toBeGreaterThan(100_000);
    expect((await upload(large)).thumbnail_id).toBeUndefined();
    expect(thumbnailWarnings(setup.logs).map((w) => w.reason)).toEqual(['too_large']);
    expect((await upload(redHalfPdf())).thumbnail_id).toBeDefined();
  });

  it('cuts off a render that runs too long while the API keeps answering, then renders the next file', async () => {
    setup.logs.length = 0;
    const probe = await upload(redHalfPdf());
    // pdf.js needs about a minute of one core for this file (under the size limit): far past the
    // 20 s limit, however fast or busy the machine.
    const slowFile = slowPdf(1_000_000);
    expect(slowFile.length).toBeLessThan(100_000);
    const stored = storedKeys().length;
    let uploaded = false;
    const slow = upload(slowFile).finally(() => {
      uploaded = true;
    });
    // The PDF is stored: its render starts and holds the worker until the limit ends it.
    await expect.poll(() => storedKeys().length).toBe(stored + 1);
    // Requests answered meanwhile, each in far less time than the render takes. Speed is the point
    // here: a render on the thread that answers requests would hold each of them for the whole
    // render (the time limit could not even stop it); 5 s leaves room for a busy machine.
    let answered = 0;
    while (!uploaded) {
      const started = performance.now();
      expect((await api(`/v2/core/assets/${probe.id}`, setup.issuer)).status).toBe(200);
      expect(performance.now() - started).toBeLessThan(5000);
      if (!uploaded) answered += 1;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(answered).toBeGreaterThanOrEqual(3);

    const asset = await slow;
    expect(asset.thumbnail_id).toBeUndefined();
    expect(thumbnailWarnings(setup.logs).map((w) => w.reason)).toEqual(['timeout']);
    // The stuck worker was replaced.
    const next = await upload(redHalfPdf());
    expect((await get(next.thumbnail_id!)).status).toBe(200);
  }, 120_000);
});
