import { readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { problemSchema } from '../../shared/api/problem';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import type { PlatformOptions } from '../composition/app';
import { multipartBody, png, sha256 } from '../testing/files';
import {
  deckPdf,
  encryptedPdf,
  garbagePdf,
  largePdf,
  redHalfPdf,
  slowPdf,
  threePagePdf,
  truncatedPdf,
} from '../testing/pdf-files';
import { bearer, startPlatform, tokensFor } from '../testing/platform-server';
import { storageState } from '../testing/storage-state';
import { storedBlobKeys } from '../testing/stored-files';
import { pollUntil, thumbnailGate } from '../testing/thumbnails';

interface LogLine {
  level: number;
  msg: string;
  reason?: string;
  thumbnailId?: number;
  bytesRead?: number;
  size?: number;
}

/** A platform of its own, with its log lines kept for reading. */
async function platformWithLog(
  env: Record<string, string> = {},
  options: Pick<PlatformOptions, 'thumbnailHooks'> & { level?: string } = {},
) {
  const logs: string[] = [];
  // A render time limit far above what the small test PDFs take on a busy machine.
  const platform = await startPlatform(
    { PDF_THUMBNAIL_TIMEOUT_MS: '60000', ...env },
    {
      logger: { level: options.level ?? 'warn', stream: { write: (line: string) => void logs.push(line) } },
      thumbnailHooks: options.thumbnailHooks,
    },
  );
  const issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  const investor = (await tokensFor(platform, 'investor@demo.test')).access_token;
  const me = meSchema.parse(
    await (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(issuer) })).json(),
  );
  const productId = me.entities.find((e) => e.type === 'Product')!.id;
  const investmentId = me.entities.find((e) => e.type === 'Investment')!.id;
  const logLines = () => logs.map((line) => JSON.parse(line) as LogLine);
  return { platform, logs, logLines, issuer, investor, productId, investmentId };
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
      etag: response.headers.get('etag'),
      asset: response.ok ? assetEnvelopeSchema.parse(await response.json()).asset : undefined,
    };
  };
  const downloadUrl = async (id: number | string, token = setup().issuer) => {
    const response = await api(`/v2/core/assets/${id}/download_url`, token);
    expect(response.status).toBe(200);
    return ((await response.json()) as { url: string }).url;
  };
  /** The thumbnail once it is made: polled as a client would (its `pending` gone). */
  const ready = (id: number | string, token = setup().issuer) =>
    pollUntil(`thumbnail ${id} to be made`, async () => {
      const { asset } = await get(id, token);
      return asset && !asset.pending ? asset : undefined;
    });
  /** Waits until the parent has no thumbnail any more (it could not be made); answers the parent. */
  const withoutThumbnail = (parentId: number) =>
    pollUntil(`asset ${parentId} to lose its thumbnail`, async () => {
      const { asset } = await get(parentId);
      return asset && asset.thumbnail_id === undefined ? asset : undefined;
    });
  /** Every file in the platform's blob store (committed ones, not staging leftovers). */
  const storedKeys = () => storedBlobKeys(setup().platform);
  return { api, upload, get, downloadUrl, ready, withoutThumbnail, storedKeys };
}

/** RGB of the pixel at (x, y) of an image. */
async function pixel(image: Buffer, x: number, y: number) {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at], data[at + 1], data[at + 2]];
}

/** Log lines (pino JSON) that say a PDF went without a thumbnail. */
const thumbnailWarnings = (setup: Setup) =>
  setup.logLines().filter((entry) => entry.msg === 'PDF uploaded without a thumbnail');

/** Bytes this process has read through read(2) and friends, from files, sockets and pipes alike. */
const bytesReadByProcess = () => Number(/rchar: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);

// Renders wait for a CPU at the lowest priority: on a busy machine a thumbnail may take a while.
const waitsForRenders = { timeout: 180_000 };

describe('PDF thumbnails, made after the upload is answered', waitsForRenders, () => {
  let setup: Setup;
  const beforeRender = thumbnailGate();
  const beforeStore = thumbnailGate();
  beforeAll(async () => {
    setup = await platformWithLog(
      {},
      {
        level: 'debug',
        thumbnailHooks: { ...beforeRender.at('beforeRender'), ...beforeStore.at('beforeStore') },
      },
    );
  });
  afterAll(() => setup.platform.close());
  const { api, upload, get, downloadUrl, ready, withoutThumbnail, storedKeys } = client(() => setup);

  it('answers 201 with thumbnail_id before rendering; the thumbnail is pending (409 with Retry-After) until made', async () => {
    const before = (await storedKeys()).length;
    // No thumbnail may be finished: had the upload waited for it, it would never be answered.
    beforeRender.hold();
    const parent = await upload(await threePagePdf());
    expect(parent.thumbifiable).toBe(true);
    expect(parent.thumbnail_id).toMatch(/^\d+$/);
    const thumbnailId = Number(parent.thumbnail_id);
    expect((await get(parent.id)).asset!.thumbnail_id).toBe(parent.thumbnail_id);

    // The pending thumbnail reads as an asset of its own, without a file yet.
    const pending = await get(thumbnailId);
    expect(pending.status).toBe(200);
    expect(pending.asset).toMatchObject({
      id: thumbnailId,
      name: 'deck (thumbnail).png',
      file_type: 'pitch_deck',
      assetable: { type: 'Product', id: setup.productId },
      private: false,
      thumbifiable: false,
      content_type: 'image/png',
      pending: true,
    });
    expect(pending.asset!.size).toBeUndefined();
    expect(pending.asset!.width).toBeUndefined();
    // Its file and renditions answer "not yet", saying when to ask again.
    for (const query of ['', '?variant=preview&width=320', '?variant=cropped']) {
      const response = await api(`/v2/core/assets/${thumbnailId}/download_url${query}`, setup.issuer);
      expect(response.status).toBe(409);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(problemSchema.parse(await response.json()).code).toBe('thumbnail_pending');
      expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    }
    // The PDF itself is there at once.
    expect((await fetch(await downloadUrl(parent.id))).status).toBe(200);
    expect((await storedKeys()).length).toBe(before + 1);

    beforeRender.release();
    const thumbnail = await ready(thumbnailId);
    expect(thumbnail).toMatchObject({ content_type: 'image/png', width: 791, height: 1024 });
    expect(thumbnail.pending).toBeUndefined();
    // Made is a change: its ETag is not the pending one's.
    expect((await get(thumbnailId)).etag).not.toBe(pending.etag);
    expect((await storedKeys()).length).toBe(before + 2);

    const file = await fetch(await downloadUrl(thumbnailId));
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    const image = Buffer.from(await file.arrayBuffer());
    expect(image.length).toBe(thumbnail.size);
    // Page 1 of the file: red on the left half, white paper on the right (page 2 is blue, 3 green).
    expect(await pixel(image, 100, 500)).toEqual([255, 0, 0]);
    expect(await pixel(image, 690, 500)).toEqual([255, 255, 255]);
    const previewUrl = await api(
      `/v2/core/assets/${thumbnailId}/download_url?variant=preview&width=320`,
      setup.issuer,
    );
    expect(previewUrl.status).toBe(200);
    const preview = await fetch(((await previewUrl.json()) as { url: string }).url);
    expect(preview.headers.get('content-type')).toBe('image/webp');
  });

  it('keeps the thumbnail, pending or made, out of the entity sideload and its links.assets list', async () => {
    beforeRender.hold();
    const parent = await upload(await redHalfPdf());
    try {
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
        // No listed asset is anybody's thumbnail, and none is pending.
        const thumbnails = new Set(
          assets
            .map((a) => a.thumbnail_id)
            .filter(Boolean)
            .map(Number),
        );
        expect(ids.filter((id) => thumbnails.has(id))).toEqual([]);
        expect(assets.filter((a) => a.pending)).toEqual([]);
      }
    } finally {
      beforeRender.release();
    }
    await ready(parent.thumbnail_id!);
  });

  it("shows the thumbnail to whoever may see the parent, and follows the parent's privacy", async () => {
    const open = await upload(await redHalfPdf());
    await ready(open.thumbnail_id!);
    expect((await get(open.thumbnail_id!, setup.investor)).status).toBe(200);
    expect((await fetch(await downloadUrl(open.thumbnail_id!, setup.investor))).status).toBe(200);

    beforeRender.hold();
    const hidden = await upload(await redHalfPdf(), { private: 'true' });
    // Pending or made, a private parent's thumbnail is private.
    expect((await get(hidden.thumbnail_id!)).asset).toMatchObject({ private: true, pending: true });
    expect((await get(hidden.thumbnail_id!, setup.investor)).status).toBe(404);
    expect((await api(`/v2/core/assets/${hidden.thumbnail_id}/download_url`, setup.investor)).status).toBe(
      404,
    );
    beforeRender.release();
    expect((await ready(hidden.thumbnail_id!)).private).toBe(true);
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

  it('lets the owner change or delete a thumbnail, pending or made, only through its parent', async () => {
    beforeRender.hold();
    const parent = await upload(await redHalfPdf());
    const tryChanges = async () => {
      const put = await api(`/v2/core/assets/${parent.thumbnail_id}`, setup.issuer, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ asset: { private: true } }),
      });
      expect(put.status).toBe(403);
      const del = await api(`/v2/core/assets/${parent.thumbnail_id}`, setup.issuer, { method: 'DELETE' });
      expect(del.status).toBe(403);
    };
    await tryChanges();
    beforeRender.release();
    await ready(parent.thumbnail_id!);
    await tryChanges();
    expect((await get(parent.thumbnail_id!, setup.investor)).status).toBe(200);
  });

  it('makes no thumbnail of an image in a thumbifiable slot, nor of a PDF in a non-thumbifiable one', async () => {
    const before = (await storedKeys()).length;
    const image = await upload(await png(300, 200), {});
    expect(image).toMatchObject({ thumbifiable: true, content_type: 'image/png' });
    expect(image.thumbnail_id).toBeUndefined();
    const document = await upload(await redHalfPdf(), {
      file_type: 'additional_document',
      assetable_type: 'Investment',
      assetable_id: String(setup.investmentId),
    });
    expect(document).toMatchObject({ thumbifiable: false, content_type: 'application/pdf' });
    expect(document.thumbnail_id).toBeUndefined();
    expect((await storedKeys()).length).toBe(before + 2);
  });

  it('PT3 ends a PDF that cannot be thumbnailed with no thumbnail: thumbnail_id cleared, the reason logged, never the content', async () => {
    const warnedBefore = thumbnailWarnings(setup).length;
    for (const bytes of [encryptedPdf(), garbagePdf(), truncatedPdf()]) {
      const before = await storedKeys();
      const asset = await upload(bytes);
      // Reserved at the upload, as for any PDF of this type: whether pdf.js can read it comes later.
      expect(asset.thumbnail_id).toMatch(/^\d+$/);
      await withoutThumbnail(asset.id);
      // The thumbnail is gone, not pending forever.
      expect((await get(asset.thumbnail_id!)).status).toBe(404);
      expect((await api(`/v2/core/assets/${asset.thumbnail_id}/download_url`, setup.issuer)).status).toBe(
        404,
      );
      // The file itself, and nothing else, was kept.
      expect((await storedKeys()).length).toBe(before.length + 1);
      const file = await fetch(await downloadUrl(asset.id));
      expect(sha256(new Uint8Array(await file.arrayBuffer()))).toBe(sha256(bytes));
    }
    const warnings = thumbnailWarnings(setup).slice(warnedBefore);
    expect(warnings.map((w) => [w.level, w.reason])).toEqual([
      [40, 'encrypted'],
      [40, 'invalid_pdf'],
      [40, 'invalid_pdf'],
    ]);
    const logged = setup.logs.join('\n');
    expect(logged).not.toContain('%PDF');
    expect(logged).not.toContain(' re f');
    expect((await storageState(setup.platform.config)).pendingKeys).toEqual([]);
  });

  it('deletes the thumbnail, its file and its download URLs with the parent', async () => {
    const parent = await upload(await redHalfPdf());
    const thumbnail = await ready(parent.thumbnail_id!);
    const thumbnailUrl = await downloadUrl(thumbnail.id);
    expect(await storedKeys()).toContain(thumbnail.key);

    expect((await api(`/v2/core/assets/${parent.id}`, setup.issuer, { method: 'DELETE' })).status).toBe(204);
    expect((await get(thumbnail.id)).status).toBe(404);
    // Ended like every URL of a deleted asset: the answer a forged URL gets (H2, H4).
    expect((await fetch(thumbnailUrl)).status).toBe(403);
    expect(await storedKeys()).not.toContain(thumbnail.key);
    expect(await storedKeys()).not.toContain(parent.key);
  });

  /** Deletes the parent while its thumbnail is held at `gate`, lets it go, and checks nothing is left. */
  async function deleteWhilePending(gate: ReturnType<typeof thumbnailGate>) {
    gate.hold();
    let thumbnailId = 0;
    try {
      const parent = await upload(deckPdf(2));
      thumbnailId = Number(parent.thumbnail_id);
      const reserved = (await get(thumbnailId)).asset!;
      expect(reserved.pending).toBe(true);
      // The thumbnail's job is under way, held at the gate.
      await pollUntil('the thumbnail to reach the gate', () =>
        gate.arrived.includes(thumbnailId) ? true : undefined,
      );
      expect((await api(`/v2/core/assets/${parent.id}`, setup.issuer, { method: 'DELETE' })).status).toBe(
        204,
      );
      expect((await get(thumbnailId)).status).toBe(404);
      gate.release();
      // The job noticed, and left nothing: no row, no PNG written after the delete, not the PDF.
      await pollUntil('the pending thumbnail to be dropped', () =>
        setup
          .logLines()
          .some((l) => l.msg.startsWith('PDF thumbnail dropped') && l.thumbnailId === thumbnailId)
          ? true
          : undefined,
      );
      expect(await storedKeys()).not.toContain(reserved.key);
      expect(await storedKeys()).not.toContain(parent.key);
      const state = await storageState(setup.platform.config);
      expect(state.pendingKeys).not.toContain(reserved.key);
      expect(state.rowKeys).not.toContain(reserved.key);
      expect((await storedKeys()).every((key) => state.rowKeys.includes(key))).toBe(true);
    } finally {
      gate.release();
    }
  }

  it('PT2 leaves no row and no file when the parent is deleted before its thumbnail is rendered', async () => {
    await deleteWhilePending(beforeRender);
  });

  it('PT2 leaves no row and no file when the parent is deleted after its thumbnail is rendered, before it is stored', async () => {
    await deleteWhilePending(beforeStore);
  });

  it('answers a retried create with the same thumbnail, and makes no second one', async () => {
    const before = (await storedKeys()).length;
    const headers = { 'idempotency-key': 'thumbnail-retry-1' };
    const first = await upload(await redHalfPdf(), { name: 'Retried deck' }, headers);
    // Same request again, byte for byte: the same answer.
    const bytes = Buffer.from(await redHalfPdf());
    const second = await upload(bytes, { name: 'Retried deck' }, headers);
    expect(second.id).toBe(first.id);
    expect(second.thumbnail_id).toBe(first.thumbnail_id);
    await ready(first.thumbnail_id!);
    expect((await storedKeys()).length).toBe(before + 2);
  });

  it('PT4 reads only what page 1 needs of a 45 MB PDF from storage, never the whole file', async () => {
    const large = largePdf(45 * 1024 * 1024);
    beforeRender.hold();
    let thumbnailId = 0;
    let readDuringRender = 0;
    try {
      const parent = await upload(large);
      thumbnailId = Number(parent.thumbnail_id);
      await pollUntil('the thumbnail to reach the gate', () =>
        beforeRender.arrived.includes(thumbnailId) ? true : undefined,
      );
      // Counted by the kernel for this whole process (the platform runs in it, its workers too):
      // every byte read from a file or a socket from here until the thumbnail is made.
      const readBefore = bytesReadByProcess();
      beforeRender.release();
      const thumbnail = await ready(thumbnailId);
      readDuringRender = bytesReadByProcess() - readBefore;
      expect(thumbnail).toMatchObject({ width: 791, height: 1024 });
    } finally {
      beforeRender.release();
    }
    // Reading the file whole would be 45 MB; page 1's ranges, the polls and the database are far less.
    expect(readDuringRender).toBeLessThan(5 * 1024 * 1024);
    const made = setup
      .logLines()
      .find((l) => l.msg === 'PDF thumbnail made' && l.thumbnailId === thumbnailId);
    expect(made).toMatchObject({ size: large.length });
    expect(made!.bytesRead).toBeLessThan(1024 * 1024);
  });
});

describe('PDF thumbnails under limits', waitsForRenders, () => {
  let setup: Setup;
  beforeAll(async () => {
    setup = await platformWithLog({
      PDF_THUMBNAIL_WORKERS: '1',
      PDF_THUMBNAIL_TIMEOUT_MS: '1500',
      PDF_THUMBNAIL_MAX_BYTES: '20000',
    });
  });
  afterAll(() => setup.platform.close());
  const { api, upload, get, ready, withoutThumbnail } = client(() => setup);

  it('takes a PDF over the thumbnail size limit without a thumbnail', async () => {
    const warnedBefore = thumbnailWarnings(setup).length;
    const large = deckPdf(40);
    expect(large.length).toBeGreaterThan(20_000);
    expect((await upload(large)).thumbnail_id).toBeUndefined();
    expect(
      thumbnailWarnings(setup)
        .slice(warnedBefore)
        .map((w) => w.reason),
    ).toEqual(['too_large']);
    expect((await upload(await redHalfPdf())).thumbnail_id).toBeDefined();
  });

  it('PT3 gives up a render that takes too long while the API keeps answering, then renders the next file', async () => {
    const warnedBefore = thumbnailWarnings(setup).length;
    const probe = await upload(await redHalfPdf());
    // pdf.js needs seconds of CPU for this file (under the size limit): far past the 1.5 s limit.
    const slowFile = slowPdf();
    expect(slowFile.length).toBeLessThan(20_000);
    const slow = await upload(slowFile);
    expect(slow.thumbnail_id).toMatch(/^\d+$/);
    // The API answers while the render runs (it never runs on the thread that answers requests).
    for (let i = 0; i < 8; i++) {
      expect((await api(`/v2/core/assets/${probe.id}`, setup.issuer)).status).toBe(200);
    }
    expect((await get(slow.thumbnail_id!)).asset?.pending).toBe(true);

    await withoutThumbnail(slow.id);
    expect(
      thumbnailWarnings(setup)
        .slice(warnedBefore)
        .map((w) => w.reason),
    ).toEqual(['timeout']);
    // The stuck worker was replaced.
    const next = await upload(await redHalfPdf());
    expect((await ready(next.thumbnail_id!)).content_type).toBe('image/png');
  }, 120_000);
});
