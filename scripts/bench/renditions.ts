/**
 * S6 and S7 of docs/performance.md, with their own platform and baseline servers so that
 * `BENCH_ONLY=renditions npm run bench` runs them alone. Interleaved (A B A B ...), medians.
 *   S6  delivery of a 1 MB asset by signed URL, MB/s ÷ @fastify/static serving the same file
 *   S7  crop + resize to an 800 px WebP of a 4000×3000 JPEG through the rendition path (download_url,
 *       then the signed URL), first request ÷ bare sharp doing the same behind a bare Fastify route
 *   S7c the repeated request, served from the rendition cache: MB/s ÷ @fastify/static serving the
 *       same WebP file; and, for the target "≥ 0.8× S6", ÷ our own delivery of the same bytes
 *       uploaded as an original (S6's path at the rendition's size: per-request costs weigh more on
 *       a 200 KB file than on S6's 1 MB one, for any server)
 * S6 and S7c are steered by the servers' CPU per request (the baseline's ÷ ours); MB/s beside it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import {
  type BenchRow,
  cpuRow,
  issuerToken,
  type Load,
  load,
  median,
  photoJpeg,
  printRows,
  roundRatios,
  sleep,
  waitFor,
} from './common';

async function timed<T>(work: () => Promise<T>) {
  const started = performance.now();
  const value = await work();
  return { ms: performance.now() - started, value };
}

export async function benchRenditions(rounds = 5): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'bench-renditions-'));
  const children: ChildProcess[] = [];
  const start = (args: string[], env: Record<string, string> = {}) => {
    const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
      env: { ...process.env, ...env },
      stdio: 'ignore',
    });
    children.push(child);
    return child;
  };
  try {
    const platformUrl = 'http://127.0.0.1:4910';
    const staticUrl = 'http://127.0.0.1:4911';
    const sharpUrl = 'http://127.0.0.1:4912';
    const dataDir = join(work, 'data');
    const staticDir = join(work, 'static');
    mkdirSync(staticDir);

    // The files: 1 MB of "PDF" (a header and random bytes), and a 12-megapixel photo-like JPEG.
    const document = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(1024 * 1024 - 9)]);
    writeFileSync(join(staticDir, 'document.pdf'), document);
    const photo = await photoJpeg();
    const photoPath = join(work, 'photo.jpg');
    writeFileSync(photoPath, photo);

    const platform = start(['src/platform/main.ts'], {
      DATA_DIR: dataDir,
      DEMO_SEED: '1',
      PLATFORM_PORT: '4910',
      API_RATE_LIMIT: '100000000',
      TOKEN_RATE_LIMIT: '100000',
      DOWNLOAD_URL_TTL: '3600',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
    });
    const staticServer = start(['scripts/bench/rendition-servers.ts', 'static', '4911', staticDir]);
    start(['scripts/bench/rendition-servers.ts', 'sharp', '4912', photoPath]);
    await Promise.all([
      waitFor(`${platformUrl}/healthz`),
      waitFor(`${staticUrl}/document.pdf`),
      waitFor(`${sharpUrl}/?x=0&y=0&w=1&h=1&width=1`),
    ]);

    const token = await issuerToken(platformUrl, dataDir);
    const auth = { authorization: `Bearer ${token}` };
    const api = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${platformUrl}${path}`, {
        ...init,
        headers: { ...auth, ...(init.headers as Record<string, string>) },
      });
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      return response.json() as Promise<Record<string, unknown>>;
    };
    const upload = async (fields: Record<string, string>, bytes: Buffer, name: string) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(k, v);
      form.append('file', new Blob([new Uint8Array(bytes)]), name);
      return ((await api('/v2/core/assets', { method: 'POST', body: form })) as { asset: { id: number } })
        .asset.id;
    };
    const signedUrl = async (id: number, query = '') =>
      ((await api(`/v2/core/assets/${id}/download_url${query}`)) as { url: string }).url;
    const fetchAll = async (url: string) => {
      const response = await fetch(url);
      if (!response.ok) throw new Error(`${url} answered ${response.status}`);
      return Buffer.from(await response.arrayBuffer());
    };

    const documentId = await upload(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      document,
      'document.pdf',
    );
    const photoId = await upload(
      { file_type: 'cover_image', assetable_type: 'Product', assetable_id: '1' },
      photo,
      'photo.jpg',
    );

    // S6: the same 1 MB, signed URL against @fastify/static.
    const documentUrl = await signedUrl(documentId);
    const oursS6: Load[] = [];
    const staticS6: Load[] = [];
    const ourLoad = (url: string) => load(url, platform.pid!, { loops: 16 });
    const staticLoad = (url: string) => load(url, staticServer.pid!, { loops: 16 });
    for (let i = 0; i < rounds; i++) {
      staticS6.push(await staticLoad(`${staticUrl}/document.pdf`));
      oursS6.push(await ourLoad(documentUrl));
    }

    // S7, first request: a crop never asked for before in each round (so nothing is cached), the
    // same crop for bare sharp. Ours is the whole client flow: download_url, then the signed URL.
    const oursFirst: number[] = [];
    const bareFirst: number[] = [];
    let lastRendition: Buffer | undefined;
    let lastUrl = '';
    // Single renders are short and noisy: more rounds than the throughput measures take.
    for (let i = 0; i < 2 * rounds + 2; i++) {
      const crop = { x: 200 + 16 * i, y: 150 + 8 * i, width: 3200, height: 2400 };
      await api(`/v2/core/assets/${photoId}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ asset: { meta: { crop } } }),
      });
      const bare = await timed(() =>
        fetchAll(`${sharpUrl}/?x=${crop.x}&y=${crop.y}&w=${crop.width}&h=${crop.height}&width=800`),
      );
      const ours = await timed(async () => {
        lastUrl = await signedUrl(photoId, '?variant=cropped&width=800');
        return fetchAll(lastUrl);
      });
      // The first two rounds warm both processes up (JIT, libvips start-up) and are not counted.
      if (i < 2) continue;
      bareFirst.push(bare.ms);
      oursFirst.push(ours.ms);
      lastRendition = ours.value;
      if ((await sharp(ours.value).metadata()).width !== 800)
        throw new Error('the rendition is not 800 px wide');
    }

    // S7, repeated: the cached WebP through the signed URL against @fastify/static serving it, and
    // against the same bytes delivered as an original asset.
    writeFileSync(join(staticDir, 'rendition.webp'), lastRendition!);
    const sameBytesId = await upload(
      { file_type: 'logo', assetable_type: 'Product', assetable_id: '1' },
      lastRendition!,
      'rendition.webp',
    );
    const sameBytesUrl = await signedUrl(sameBytesId);
    const repeatFlow = await timed(async () =>
      fetchAll(await signedUrl(photoId, '?variant=cropped&width=800')),
    );
    const oursCached: Load[] = [];
    const staticCached: Load[] = [];
    const oursSameBytes: Load[] = [];
    for (let i = 0; i < rounds; i++) {
      staticCached.push(await staticLoad(`${staticUrl}/rendition.webp`));
      oursCached.push(await ourLoad(lastUrl));
      oursSameBytes.push(await ourLoad(sameBytesUrl));
    }
    const cacheFiles = readdirSync(join(dataDir, 'renditions', 'v1')).length;

    const rate = (loads: Load[]) => median(loads.map((l) => l.perSecond));
    console.log(
      `\nrenditions raw medians: 1 MB delivery ${((rate(oursS6) * document.length) / 2 ** 20).toFixed(0)} vs static ` +
        `${((rate(staticS6) * document.length) / 2 ** 20).toFixed(0)} MB/s; first rendition ${median(oursFirst).toFixed(0)} ms ` +
        `vs bare sharp ${median(bareFirst).toFixed(0)} ms; repeated download_url + fetch ${repeatFlow.ms.toFixed(0)} ms; ` +
        `cached ${lastRendition!.length} B WebP ${rate(oursCached).toFixed(0)} vs static ${rate(staticCached).toFixed(0)} ` +
        `vs the same bytes as an original ${rate(oursSameBytes).toFixed(0)} req/s; ${cacheFiles} original(s) with renditions on disk; ` +
        `photo ${(photo.length / 2 ** 20).toFixed(1)} MB`,
    );
    return [
      cpuRow('S6', '1 MB delivery by signed URL ÷ @fastify/static', oursS6, staticS6, '≥ 0.8'),
      {
        id: 'S7',
        measure: 'first crop + 800 px WebP: bare sharp time ÷ rendition path time',
        ...roundRatios(oursFirst.map((ms, i) => bareFirst[i]! / ms)),
        target: '≥ 0.85',
      },
      cpuRow(
        'S7c',
        'repeated (cached) rendition ÷ @fastify/static of the same file',
        oursCached,
        staticCached,
        '≥ 0.8',
      ),
      cpuRow(
        'S7c′',
        'repeated (cached) rendition ÷ signed-URL delivery of the same bytes as an original',
        oursCached,
        oursSameBytes,
        '≥ 0.8 (the "0.8× S6")',
      ),
    ];
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(200);
    rmSync(work, { recursive: true, force: true });
  }
}

// Run on its own: `tsx scripts/bench/renditions.ts`.
if (process.argv[1]?.endsWith('renditions.ts')) printRows(await benchRenditions());
