import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { meSchema } from '../../shared/api/me';
import { problemSchema } from '../../shared/api/problem';
import { buildPlatform } from '../composition/app';
import { createFsBlobStore } from '../storage/fs-blob-store';
import type { BlobStore } from '../storage/blob-store';
import { multipartBody, pdf, sha256 } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { createRenditionCache } from './rendition-cache';
import { plantRendition, renditionFiles, renditionPaths } from '../testing/stored-files';
import { createRenditions } from './renditions';

let platform: TestPlatform;
let issuer: string;
let productId: number;
let investmentId: number;

beforeAll(async () => {
  platform = await startPlatform();
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  const me = meSchema.parse(
    await (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(issuer) })).json(),
  );
  productId = me.entities.find((e) => e.type === 'Product')!.id;
  investmentId = me.entities.find((e) => e.type === 'Investment')!.id;
});
afterAll(() => platform.close());

// ---------------------------------------------------------------------------------------------
// Images of known content.

type Rgb = [number, number, number];
const red: Rgb = [255, 0, 0];
const green: Rgb = [0, 255, 0];
const blue: Rgb = [0, 0, 255];
const yellow: Rgb = [255, 255, 0];

/** Four quadrants: red top left, green top right, blue bottom left, yellow bottom right. */
async function quadrants(width = 200, height = 100) {
  const w = width / 2;
  const h = height / 2;
  const tile = (background: Rgb) =>
    sharp({ create: { width: w, height: h, channels: 3, background: rgbOf(background) } })
      .png()
      .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: { r: 0, g: 0, b: 0 } } })
    .composite([
      { input: await tile(red), left: 0, top: 0 },
      { input: await tile(green), left: w, top: 0 },
      { input: await tile(blue), left: 0, top: h },
      { input: await tile(yellow), left: w, top: h },
    ])
    .png()
    .toBuffer();
}
const rgbOf = ([r, g, b]: Rgb) => ({ r, g, b });

/** The colour at the centre of an image, and its size. */
async function centre(bytes: Uint8Array) {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (Math.floor(info.height / 2) * info.width + Math.floor(info.width / 2)) * 3;
  return { width: info.width, height: info.height, rgb: [data[at]!, data[at + 1]!, data[at + 2]!] as Rgb };
}

/** Close to a colour: JPEG and WebP are lossy. */
function expectColour(actual: Rgb, expected: Rgb) {
  actual.forEach((channel, i) =>
    expect(Math.abs(channel - expected[i]!), `${actual} vs ${expected}`).toBeLessThan(40),
  );
}

/** A PNG that says it is 20000×20000 pixels in a few hundred bytes: a decompression bomb. */
function pixelBombPng() {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(20_000, 0);
  ihdr.writeUInt32BE(20_000, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 2; // RGB
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    // A few rows only: the file is refused on its header, long before any row would be read.
    chunk('IDAT', deflateSync(Buffer.alloc(3 * (1 + 20_000 * 3)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

function crc32(bytes: Buffer) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

// ---------------------------------------------------------------------------------------------
// API helpers.

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, {
    ...init,
    headers: { ...bearer(issuer), ...(init.headers as Record<string, string>) },
  });

async function upload(
  bytes: Uint8Array,
  options: { name?: string; meta?: object; fileType?: string } = {},
): Promise<Asset> {
  const fileType = options.fileType ?? 'logo';
  const owner =
    fileType === 'logo'
      ? { assetable_type: 'Product', assetable_id: String(productId) }
      : { assetable_type: 'Investment', assetable_id: String(investmentId) };
  const response = await api('/v2/core/assets', {
    method: 'POST',
    body: multipartBody(
      { file_type: fileType, ...owner, ...(options.meta ? { meta: JSON.stringify(options.meta) } : {}) },
      { name: options.name ?? 'image.png', bytes },
    ),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

const urlResponse = (asset: Asset, query: string) => api(`/v2/core/assets/${asset.id}/download_url?${query}`);

async function renditionUrl(asset: Asset, query: string) {
  const response = await urlResponse(asset, query);
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { url: string }).url;
}

async function fetchBytes(url: string) {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return { response, bytes: new Uint8Array(await response.arrayBuffer()) };
}

async function rendition(asset: Asset, query: string) {
  return fetchBytes(await renditionUrl(asset, query));
}

async function expectProblem(response: Response, status: number, code: string) {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  expect(response.headers.get('content-type')).toContain('application/problem+json');
  const problem = problemSchema.parse(JSON.parse(text));
  expect(problem.code).toBe(code);
  return problem;
}

const cacheFolder = (asset: Asset) => join(platform.dataDir, 'renditions', 'v1', asset.key);
/** The rendition files of an asset, on disk or in the bucket (TEST_BLOB_STORE). */
const cachedFiles = (asset: Asset) => renditionFiles(platform, asset.key);
/** Checks that only mean something on disk; rendition-cache.test.ts holds the bucket's counterparts. */
const onDisk = () => platform.config.blobStore.kind === 'fs';

// ---------------------------------------------------------------------------------------------

describe('cropped renditions', () => {
  it('cut meta.crop out of the image and deliver it as WebP', async () => {
    const asset = await upload(await quadrants(), {
      name: 'quads.png',
      meta: { crop: { x: 100, y: 50, width: 100, height: 50 } },
    });
    const url = await renditionUrl(asset, 'variant=cropped');
    expect(new URL(url).searchParams.get('variant')).toBe('cropped');
    const { response, bytes } = await fetchBytes(url);
    expect(response.headers.get('content-type')).toBe('image/webp');
    expect(response.headers.get('content-disposition')).toBe('inline; filename=quads.webp');
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await sharp(bytes).metadata()).format).toBe('webp');
    const pixel = await centre(bytes);
    expect([pixel.width, pixel.height]).toEqual([100, 50]);
    expectColour(pixel.rgb, yellow);
  });

  it('are the whole image when there is no crop, and resized when a width is asked for', async () => {
    const asset = await upload(await quadrants(400, 200));
    const whole = await centre((await rendition(asset, 'variant=cropped')).bytes);
    expect([whole.width, whole.height]).toEqual([400, 200]);
    const small = await rendition(asset, 'variant=cropped&width=150');
    expect(new URL(small.response.url).searchParams.get('width')).toBe('160');
    const size = await sharp(small.bytes).metadata();
    expect([size.width, size.height]).toEqual([160, 80]);
  });

  it('take the crop in EXIF-oriented pixels (a JPEG with orientation 6)', async () => {
    // Stored turned a quarter to the left; orientation 6 tells viewers to turn it back.
    const upright = await quadrants(200, 100);
    const stored = await sharp(upright)
      .rotate(270)
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(stored).metadata()).width).toBe(100);
    const asset = await upload(stored, { name: 'photo.jpg' });
    expect([asset.width, asset.height]).toEqual([200, 100]);

    const put = await api(`/v2/core/assets/${asset.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: { meta: { crop: { x: 100, y: 0, width: 100, height: 50 } } } }),
    });
    expect(put.status).toBe(200);
    const topRight = await centre((await rendition(asset, 'variant=cropped')).bytes);
    expect([topRight.width, topRight.height]).toEqual([100, 50]);
    expectColour(topRight.rgb, green);
    // The preview is upright too.
    const preview = await centre((await rendition(asset, 'variant=preview&width=160')).bytes);
    expect([preview.width, preview.height]).toEqual([160, 80]);
  });

  it('carry no EXIF, GPS, XMP or ICC profile; the original keeps them, byte for byte', async () => {
    const original = await sharp(await quadrants(200, 100))
      .jpeg()
      .withExif({
        IFD0: { Copyright: 'Someone', Make: 'Camera' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '48/1 51/1 2964/100',
          GPSLongitudeRef: 'E',
          GPSLongitude: '2/1 17/1 4034/100',
        },
      })
      .withIccProfile('p3')
      .withXmp(
        '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"/></x:xmpmeta>',
      )
      .toBuffer();
    const before = await sharp(original).metadata();
    expect(before.exif && before.icc && before.xmp).toBeTruthy();
    const asset = await upload(original, {
      name: 'gps.jpg',
      meta: { crop: { x: 10, y: 10, width: 50, height: 50 } },
    });

    for (const query of ['variant=cropped', 'variant=preview&width=160']) {
      const metadata = await sharp((await rendition(asset, query)).bytes).metadata();
      expect(metadata.exif, query).toBeUndefined();
      expect(metadata.icc, query).toBeUndefined();
      expect(metadata.xmp, query).toBeUndefined();
      expect(metadata.iptc, query).toBeUndefined();
    }
    const stored = await fetchBytes(await renditionUrl(asset, 'variant=original'));
    expect(sha256(stored.bytes)).toBe(sha256(original));
  });
});

describe('preview renditions', () => {
  it('are WebP at a bounded set of widths, never enlarged, the whole image even with a crop', async () => {
    const asset = await upload(await quadrants(1000, 500), {
      meta: { crop: { x: 500, y: 250, width: 500, height: 250 } },
    });
    const asked = await rendition(asset, 'variant=preview&width=300');
    expect(new URL(asked.response.url).searchParams.get('width')).toBe('320');
    expect(asked.response.headers.get('content-type')).toBe('image/webp');
    const pixel = await centre(asked.bytes);
    expect([pixel.width, pixel.height]).toEqual([320, 160]);
    // The centre of the whole image is where the four quadrants meet; a corner shows it is uncropped.
    const { data } = await sharp(asked.bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    expectColour([data[0]!, data[1]!, data[2]!], red);

    const byDefault = await rendition(asset, 'variant=preview');
    expect(new URL(byDefault.response.url).searchParams.get('width')).toBe('640');
    expect((await sharp(byDefault.bytes).metadata()).width).toBe(640);

    // 1500 rounds up to 1920, which is wider than the image: it stays 1000 wide.
    const wide = await rendition(asset, 'variant=preview&width=1500');
    expect(new URL(wide.response.url).searchParams.get('width')).toBe('1920');
    expect((await sharp(wide.bytes).metadata()).width).toBe(1000);
    // A preview is much smaller than its original (the web app's W3).
    expect(asked.bytes.length).toBeLessThan(asset.size!);
  });

  it('refuse nonsense widths, widths for originals, and renditions of files that are not images', async () => {
    const asset = await upload(await quadrants());
    for (const width of ['0', '-5', '1.5', 'abc', '5000']) {
      const problem = await expectProblem(
        await urlResponse(asset, `variant=preview&width=${width}`),
        422,
        'validation_failed',
      );
      expect(problem.errors?.[0]?.field, width).toBe('width');
    }
    const original = await expectProblem(await urlResponse(asset, 'width=320'), 422, 'validation_failed');
    expect(original.errors?.[0]?.field).toBe('width');
    const unknown = await expectProblem(
      await urlResponse(asset, 'variant=thumbnail'),
      422,
      'validation_failed',
    );
    expect(unknown.errors?.[0]?.field).toBe('variant');

    const document = await upload(await pdf('Memo'), { name: 'memo.pdf', fileType: 'additional_document' });
    for (const variant of ['cropped', 'preview']) {
      const problem = await expectProblem(
        await urlResponse(document, `variant=${variant}`),
        422,
        'validation_failed',
      );
      expect(problem.errors?.[0]).toMatchObject({ field: 'variant' });
      expect(problem.errors?.[0]?.message).toContain('images only');
    }
  });

  it('support HEAD and Range like originals', async () => {
    const asset = await upload(await quadrants(400, 200));
    const url = await renditionUrl(asset, 'variant=preview&width=320');
    const whole = await fetchBytes(url);
    const head = await fetch(url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBe(whole.bytes.length);
    expect(head.headers.get('etag')).toBe(whole.response.headers.get('etag'));
    const range = await fetch(url, { headers: { range: 'bytes=0-11' } });
    expect(range.status).toBe(206);
    expect(range.headers.get('content-range')).toBe(`bytes 0-11/${whole.bytes.length}`);
    expect(Buffer.from(await range.arrayBuffer())).toEqual(Buffer.from(whole.bytes.subarray(0, 12)));
    expect((await fetch(url, { headers: { range: `bytes=${whole.bytes.length}-` } })).status).toBe(416);
  });
});

describe('OpenAPI', () => {
  it('documents the variant and width of download_url', async () => {
    const doc = (await (await fetch(`${platform.url}/v2/core/openapi.json`)).json()) as {
      paths: Record<string, { get: { parameters: { name: string; in: string; description?: string }[] } }>;
    };
    const parameters = doc.paths['/v2/core/assets/{id}/download_url']!.get.parameters;
    const query = Object.fromEntries(parameters.filter((p) => p.in === 'query').map((p) => [p.name, p]));
    expect(query.variant?.description).toContain('preview');
    expect(query.width?.description).toContain('160, 320, 640, 800, 1280, 1920');
  });
});

describe('signed rendition URLs', () => {
  it('refuse an altered variant or width with 403', async () => {
    const asset = await upload(await quadrants());
    const url = await renditionUrl(asset, 'variant=preview&width=160');
    expect((await fetch(url)).status).toBe(200);
    const altered = (change: (u: URL) => void) => {
      const u = new URL(url);
      change(u);
      return fetch(u);
    };
    expect((await altered((u) => u.searchParams.set('width', '1920'))).status).toBe(403);
    expect((await altered((u) => u.searchParams.delete('width'))).status).toBe(403);
    expect((await altered((u) => u.searchParams.set('variant', 'cropped'))).status).toBe(403);
    expect((await altered((u) => u.searchParams.set('variant', 'original'))).status).toBe(403);
    const original = new URL(await renditionUrl(asset, 'variant=original'));
    original.searchParams.set('variant', 'preview');
    original.searchParams.set('width', '160');
    expect((await fetch(original)).status).toBe(403);
  });
});

describe('the rendition cache', () => {
  it('serves a second request from the cache file', async () => {
    const asset = await upload(await quadrants(400, 200));
    const first = await rendition(asset, 'variant=preview&width=320');
    const files = await cachedFiles(asset);
    expect(files).toEqual(['preview-w320.webp']);
    const second = await rendition(asset, 'variant=preview&width=300');
    expect(sha256(second.bytes)).toBe(sha256(first.bytes));
    if (!onDisk()) return;
    const cached = join(cacheFolder(asset), files[0]!);
    expect(sha256(readFileSync(cached))).toBe(sha256(first.bytes));
    const written = statSync(cached);
    await rendition(asset, 'variant=preview&width=300');
    // Not rendered again: the very same file, untouched.
    const after = statSync(cached);
    expect([after.ino, after.mtimeMs]).toEqual([written.ino, written.mtimeMs]);
  });

  it('renders concurrent first requests for one rendition once', async () => {
    const asset = await upload(await quadrants(800, 400));
    const urls = await Promise.all(
      Array.from({ length: 6 }, () => renditionUrl(asset, 'variant=preview&width=640')),
    );
    const bodies = await Promise.all(urls.map(async (url) => sha256((await fetchBytes(url)).bytes)));
    expect(new Set(bodies).size).toBe(1);
    expect(await cachedFiles(asset)).toEqual(['preview-w640.webp']);
    if (onDisk()) expect(readdirSync(join(platform.dataDir, 'renditions', 'tmp'))).toEqual([]);
  });

  it('never serves an old crop after PUT changes meta.crop; a link issued before is refused (H2)', async () => {
    const asset = await upload(await quadrants(), {
      meta: { crop: { x: 100, y: 50, width: 100, height: 50 } },
    });
    const oldUrl = await renditionUrl(asset, 'variant=cropped');
    expectColour((await centre((await fetchBytes(oldUrl)).bytes)).rgb, yellow);
    await rendition(asset, 'variant=preview&width=160');
    expect((await cachedFiles(asset)).sort()).toEqual([
      'cropped-c100_50_100_50-full.webp',
      'preview-w160.webp',
    ]);

    const put = await api(`/v2/core/assets/${asset.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: { meta: { crop: { x: 0, y: 0, width: 100, height: 50 } } } }),
    });
    expect(put.status).toBe(200);
    // The old crop's file is gone; the preview does not depend on the crop and stays.
    expect(await cachedFiles(asset)).toEqual(['preview-w160.webp']);
    expectColour((await centre((await rendition(asset, 'variant=cropped')).bytes)).rgb, red);
    await expectProblem(await fetch(oldUrl), 403, 'invalid_signature');

    // Removing the crop: the whole image.
    await api(`/v2/core/assets/${asset.id}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ asset: { meta: {} } }),
    });
    const whole = await centre((await rendition(asset, 'variant=cropped')).bytes);
    expect([whole.width, whole.height]).toEqual([200, 100]);
    expect((await cachedFiles(asset)).sort()).toEqual(['cropped-whole-full.webp', 'preview-w160.webp']);
  });

  it('loses every rendition of a deleted asset', async () => {
    const asset = await upload(await quadrants(), { meta: { crop: { x: 0, y: 0, width: 10, height: 10 } } });
    const url = await renditionUrl(asset, 'variant=cropped&width=160');
    await renditionUrl(asset, 'variant=preview');
    expect(await cachedFiles(asset)).toHaveLength(2);
    expect((await api(`/v2/core/assets/${asset.id}`, { method: 'DELETE' })).status).toBe(204);
    expect(await cachedFiles(asset)).toEqual([]);
    if (onDisk()) expect(existsSync(cacheFolder(asset))).toBe(false);
    expect([403, 404]).toContain((await fetch(url)).status);
  });
});

describe('hostile and broken images', () => {
  it('refuses a pixel bomb with a problem and keeps serving', async () => {
    const bomb = pixelBombPng();
    expect(bomb.length).toBeLessThan(2000);
    // As an image file type it is refused at upload; a document file type accepts any PNG.
    const refused = await api('/v2/core/assets', {
      method: 'POST',
      body: multipartBody(
        { file_type: 'logo', assetable_type: 'Product', assetable_id: String(productId) },
        { name: 'bomb.png', bytes: bomb },
      ),
    });
    expect(refused.status).toBe(413);
    const asset = await upload(bomb, { name: 'bomb.png', fileType: 'additional_document' });
    for (const query of ['variant=preview', 'variant=cropped']) {
      const problem = await expectProblem(await urlResponse(asset, query), 422, 'image_too_large');
      expect(problem.detail).toContain('megapixels');
    }
    expect(await cachedFiles(asset)).toEqual([]);
    const fine = await upload(await quadrants());
    expect((await centre((await rendition(fine, 'variant=preview&width=160')).bytes)).width).toBe(160);
  });

  it('answers a damaged JPEG with a problem, not a 500, and keeps serving', async () => {
    const good = await sharp({
      create: {
        width: 400,
        height: 300,
        channels: 3,
        background: { r: 0, g: 0, b: 0 },
        noise: { type: 'gaussian', mean: 128, sigma: 30 },
      },
    })
      .jpeg()
      .toBuffer();
    // The header is intact (so the upload's size check passes), the picture data is cut short.
    const damaged = good.subarray(0, Math.floor(good.length / 2));
    const asset = await upload(damaged, { name: 'broken.jpg' });
    expect([asset.width, asset.height]).toEqual([400, 300]);
    for (let i = 0; i < 2; i++) {
      await expectProblem(await urlResponse(asset, 'variant=preview&width=160'), 422, 'unreadable_image');
    }
    // The original is still delivered as uploaded.
    expect(sha256((await rendition(asset, 'variant=original')).bytes)).toBe(sha256(damaged));
    const fine = await upload(await quadrants());
    expect((await centre((await rendition(fine, 'variant=preview&width=160')).bytes)).width).toBe(160);
  });
});

describe('start-up sweep', () => {
  it('removes temporary files, older generations, and renditions of deleted assets and old crops', async () => {
    const kept = await upload(await quadrants(), { meta: { crop: { x: 0, y: 0, width: 50, height: 50 } } });
    await renditionUrl(kept, 'variant=cropped');
    await renditionUrl(kept, 'variant=preview&width=160');
    // What a crash could leave behind, an older version's generation, a deleted asset's rendition.
    if (onDisk()) await plantRendition(platform, 'tmp/half-written');
    await plantRendition(platform, `v0/${kept.key}/preview-w160.webp`);
    await plantRendition(platform, `v1/${'A'.repeat(43)}/preview-w160.webp`);
    await plantRendition(platform, `v1/${kept.key}/cropped-c1_1_5_5-full.webp`);

    const restarted = await buildPlatform(platform.config, { logger: false });
    await restarted.close();
    // Everything but the current generation's renditions of other assets (other tests made those).
    const left = (await renditionPaths(platform)).filter(
      (path) => !path.startsWith('v1/') || path.includes(kept.key) || path.includes('A'.repeat(43)),
    );
    expect(left.sort()).toEqual([
      `v1/${kept.key}/cropped-c0_0_50_50-full.webp`,
      `v1/${kept.key}/preview-w160.webp`,
    ]);
    expect((await cachedFiles(kept)).sort()).toEqual(['cropped-c0_0_50_50-full.webp', 'preview-w160.webp']);
  });
});

describe('createRenditions', () => {
  let dir: string;
  let blobs: BlobStore;
  let opens = 0;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'renditions-'));
    const store = createFsBlobStore(join(dir, 'blobs'));
    // The real store, counting how often an original is read: once per render.
    blobs = {
      ...store,
      open: (key, range) => {
        opens++;
        return store.open(key, range);
      },
    };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function stored(bytes: Buffer, contentType = 'image/png') {
    const { Readable } = await import('node:stream');
    const staged = await blobs.stage(Readable.from([bytes]), { maxBytes: bytes.length });
    await staged.commit();
    return {
      blob_key: staged.key,
      size: staged.size,
      sha256: staged.sha256,
      content_type: contentType,
      meta: '{}',
    };
  }

  it('reads and renders once for many concurrent first requests, then serves the file', async () => {
    const renditions = createRenditions(createRenditionCache(join(dir, 'cache')), blobs);
    const source = await stored(await quadrants(800, 400));
    const spec = { variant: 'preview', width: 320, crop: null } as const;
    opens = 0;
    await Promise.all(Array.from({ length: 8 }, () => renditions.ensure(source, spec)));
    expect(opens).toBe(1);
    const file = await renditions.open(source, spec);
    const chunks: Buffer[] = [];
    for await (const chunk of (await file.stream())!) chunks.push(chunk as Buffer);
    expect((await sharp(Buffer.concat(chunks)).metadata()).width).toBe(320);
    expect(opens).toBe(1);
  });

  it('reads and renders at most `concurrency` originals at once; the others wait their turn', async () => {
    const source = await stored(await quadrants(800, 400));
    let open = 0;
    let most = 0;
    // The real store, counting the originals being read at the same time.
    const counting: BlobStore = {
      ...blobs,
      open: async (key, range) => {
        const stream = await blobs.open(key, range);
        if (stream) {
          most = Math.max(most, ++open);
          stream.once('close', () => open--);
        }
        return stream;
      },
    };
    const renditions = createRenditions(createRenditionCache(join(dir, 'cache-limited')), counting, {
      concurrency: 2,
    });
    const widths = [160, 320, 640, 800, 1280];
    await Promise.all(
      widths.map((width) => renditions.ensure(source, { variant: 'preview', width, crop: null })),
    );
    expect(most).toBe(2);
    for (const width of widths) {
      const file = await renditions.open(source, { variant: 'preview', width, crop: null });
      await file.close();
    }
  });

  it('remembers a failed render instead of decoding a hostile file again', async () => {
    const renditions = createRenditions(createRenditionCache(join(dir, 'cache')), blobs);
    const source = await stored(pixelBombPng());
    const spec = { variant: 'preview', width: 160, crop: null } as const;
    opens = 0;
    await expect(renditions.ensure(source, spec)).rejects.toMatchObject({
      status: 422,
      code: 'image_too_large',
    });
    await expect(renditions.ensure(source, spec)).rejects.toMatchObject({
      status: 422,
      code: 'image_too_large',
    });
    expect(opens).toBe(1);
  });

  it('gives up on an image that takes longer than the time limit', async () => {
    const renditions = createRenditions(createRenditionCache(join(dir, 'cache')), blobs, {
      limits: { maxPixels: 100_000_000, timeoutSeconds: 1 },
    });
    // 64 megapixels in a small file: decoding and encoding it at full size takes longer than that.
    const big = await sharp({
      create: { width: 8000, height: 8000, channels: 3, background: { r: 10, g: 200, b: 30 } },
    })
      .jpeg()
      .toBuffer();
    await expect(
      renditions.ensure(await stored(big, 'image/jpeg'), { variant: 'cropped', width: null, crop: null }),
    ).rejects.toMatchObject({ status: 422, code: 'image_too_complex' });
  });
});
