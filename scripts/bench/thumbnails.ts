/**
 * PDF thumbnails (performance.md S8″, S9, S1p, S2p), with a platform of their own so that
 * `BENCH_ONLY=thumbnails npm run bench` runs them alone. Interleaved (A B A B ...), medians.
 *   S8″ a 12-slide PDF pitch deck uploaded (POST /v2/core/assets): from the 201's answer to the
 *       thumbnail's row committed (the platform's own record, its updated_at, so that no poll delays
 *       it) ÷ bare pdf.js rendering page 1 of the same file, encoding the PNG and writing it durably
 *       (file, fsync, rename, folder fsync), in this process. Beside it, S8′'s older measure (the
 *       upload's start until a client polling every 5 ms sees the thumbnail, ÷ the same baseline) and
 *       CPU, which a busy machine barely moves: all the platform's (upload, render, storing, the
 *       polls) ÷ the bare render's
 *   S9  p99 latency of GET /v2/core/assets/:id (4 keep-alive loops) while a separate process keeps
 *       uploading the deck and waiting for its thumbnail, so that one is always being made ÷ the same
 *       load's p99 when the platform is otherwise idle
 *   S9c the control of S9: the same, against a platform with thumbnails off, the uploads paced to
 *       the rate S9's busy phases reached; what the uploads cost the API without any rendering
 *   S1p a 40 MB deck of scanned slides written by pdfkit (testing/scanned-deck.ts) uploaded as a
 *       pitch deck (thumbnail-making), MB/s ÷ the same bytes as an additional document (no
 *       thumbnail); the two in turns, which goes first alternating round by round, and each pitch
 *       deck's thumbnail waited for before the next upload
 *   S2p peak RSS growth of the platform while 8 such 40 MB decks upload at once and their thumbnails
 *       are made (until the last is ready), in MB
 *   S3p the platform's CPU for one such upload as a pitch deck, its thumbnail included ÷ for the same
 *       bytes without a thumbnail (S3 compares an upload with a bare pipe; this, what the thumbnail adds)
 * BENCH_THUMBNAIL_UPLOADERS (default 1) sets how many uploads run at once during S9's busy phases.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { open, rename } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { deckPdf } from '../../src/platform/testing/pdf-files';
import { scannedDeckPdf } from '../../src/platform/testing/scanned-deck';
import {
  type BenchRow,
  cpuTicks,
  latencies,
  median,
  printRows,
  roundRatios,
  rssBytes,
  sleep,
  startBenchPlatform,
  tickMicros,
} from './common';

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

const pdfjsRoot = dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json'));

/**
 * The baseline: pdf.js as its Node example uses it (fonts from its own folder), page 1 fitted
 * within 1024 px, drawn on the canvas pdf.js brings, encoded to PNG; with `storeIn`, the PNG then
 * written there durably as any store must (the file, its fsync, a rename into place, the folder's
 * fsync: S8″'s baseline). Milliseconds and PNG bytes.
 */
export async function bareRender(pdf: Buffer, storeIn?: string) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const doc = await getDocument({
    data: new Uint8Array(pdf),
    standardFontDataUrl: join(pdfjsRoot, 'standard_fonts') + '/',
    verbosity: 0,
  }).promise;
  const page = await doc.getPage(1);
  const natural = page.getViewport({ scale: 1 });
  const viewport = page.getViewport({ scale: 1024 / Math.max(natural.width, natural.height) });
  const factory = doc.canvasFactory as {
    create(w: number, h: number): { canvas: { toBuffer(mime: 'image/png'): Buffer }; context: unknown };
  };
  const { canvas, context } = factory.create(Math.round(viewport.width), Math.round(viewport.height));
  await page.render({
    canvas: canvas as unknown as HTMLCanvasElement,
    canvasContext: context as CanvasRenderingContext2D,
    viewport,
  }).promise;
  const png = canvas.toBuffer('image/png');
  if (storeIn) await writeDurably(storeIn, png);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  await doc.destroy();
  return { ms, cpuMs: (used.user + used.system) / 1000, bytes: png.length };
}

/** One durable write of `bytes` into `folder`: what a store's commit of a thumbnail cannot do without. */
async function writeDurably(folder: string, bytes: Buffer) {
  const temporary = join(folder, 'thumbnail.png.part');
  const file = await open(temporary, 'w');
  try {
    await file.writeFile(bytes);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, join(folder, 'thumbnail.png'));
  const directory = await open(folder, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/**
 * One create request of `deck` (a pitch deck, or with `fileType` another type); answers its time, its
 * id and its thumbnail's. Throws without a thumbnail unless `thumbnails` says the platform makes none.
 */
export async function createDeck(
  platformUrl: string,
  token: string,
  deck: Buffer,
  thumbnails = true,
  fileType: { file_type: string; assetable_type: string } = {
    file_type: 'pitch_deck',
    assetable_type: 'Product',
  },
) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ ...fileType, assetable_id: '1' })) form.append(k, v);
  form.append('file', new Blob([new Uint8Array(deck)], { type: 'application/pdf' }), 'deck.pdf');
  const started = performance.now();
  const response = await fetch(`${platformUrl}/v2/core/assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  // The 201's answer, on the clock the platform stamps its rows with (both on this machine).
  const answeredAt = performance.timeOrigin + performance.now();
  const body = (await response.json()) as { asset?: { id: number; thumbnail_id?: string } };
  const ms = performance.now() - started;
  // The same instant on the clock the platform stamps its rows with (both on this machine).
  const startedAt = performance.timeOrigin + started;
  if (response.status !== 201 || !body.asset || (thumbnails && !body.asset.thumbnail_id))
    throw new Error(`create answered ${response.status} without a thumbnail: ${JSON.stringify(body)}`);
  return { ms, startedAt, answeredAt, id: body.asset.id, thumbnailId: body.asset.thumbnail_id };
}

/**
 * Polls the thumbnail until it is made (no longer `pending`); throws if it was given up. Answers when
 * the platform made it: its `updated_at`, stamped as its row was completed (epoch milliseconds).
 */
export async function thumbnailReady(platformUrl: string, token: string, thumbnailId: string, everyMs = 5) {
  for (;;) {
    const response = await fetch(`${platformUrl}/v2/core/assets/${thumbnailId}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    if (response.status !== 200) throw new Error(`thumbnail ${thumbnailId} answered ${response.status}`);
    const { asset } = (await response.json()) as { asset: { pending?: boolean; updated_at: string } };
    if (!asset.pending) return Date.parse(asset.updated_at);
    await sleep(everyMs);
  }
}

/**
 * S8′'s and S8″'s measure: one upload of `deck` until its thumbnail is ready, as a client polling
 * every 5 ms sees it (`ms`), as the platform recorded it (`madeMs`), from the 201's answer to the
 * thumbnail's row committed (`afterAnswerMs`: S8″), and the platform's CPU meanwhile (`cpuMs`, in
 * clock ticks of 10 ms: sum it over rounds).
 */
export async function uploadToReady(
  platform: { platformUrl: string; token: string; pid: number },
  deck: Buffer,
) {
  const { platformUrl, token, pid } = platform;
  const ticks = cpuTicks(pid);
  const started = performance.now();
  const created = await createDeck(platformUrl, token, deck);
  const madeAt = await thumbnailReady(platformUrl, token, created.thumbnailId!);
  const ms = performance.now() - started;
  const cpuMs = ((cpuTicks(pid) - ticks) * tickMicros) / 1000;
  return {
    ms,
    madeMs: madeAt - created.startedAt,
    afterAnswerMs: madeAt - created.answeredAt,
    cpuMs,
    id: created.id,
  };
}

/**
 * S9's uploads run in a process of their own, so that building and sending them does not slow the
 * process that times the GET requests: the measure is the platform's latency, not the client's.
 * It prints a line per upload, the first one once the uploads are under way. With `perSecond`, the
 * uploads are paced to that rate, against a platform that makes no thumbnails (S9c).
 */
function startUploader(platformUrl: string, token: string, uploaders: number, perSecond?: number) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/thumbnails.ts', 'upload'], {
    env: {
      ...process.env,
      BENCH_PLATFORM_URL: platformUrl,
      BENCH_TOKEN: token,
      BENCH_THUMBNAIL_UPLOADERS: String(uploaders),
      ...(perSecond ? { BENCH_UPLOADS_PER_SECOND: String(perSecond) } : {}),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let made = 0;
  const started = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      made += chunk.toString().split('\n').length - 1;
      resolve();
    });
    child.on('exit', (code) => reject(new Error(`the uploader stopped (${code})`)));
  });
  return {
    started,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
      return made;
    },
  };
}

/**
 * p99 and p50 of GET /v2/core/assets/:id, idle and while `startUploads` keeps uploading, in
 * interleaved phases of 3 s; answers the medians over the rounds and how many uploads were made.
 */
async function latencyUnderUploads(
  url: string,
  token: string,
  rounds: number,
  startUploads: () => ReturnType<typeof startUploader>,
) {
  const phaseMs = 3000;
  const auth = { authorization: `Bearer ${token}` };
  const idleP99: number[] = [];
  const busyP99: number[] = [];
  const idleP50: number[] = [];
  const busyP50: number[] = [];
  let uploads = 0;
  await latencies(url, { headers: auth, ms: 1000, loops: 4 }); // Warm-up.
  for (let i = 0; i < rounds; i++) {
    const idle = await latencies(url, { headers: auth, ms: phaseMs, loops: 4 });
    idleP99.push(percentile(idle, 99));
    idleP50.push(percentile(idle, 50));
    const uploader = startUploads();
    await uploader.started;
    const busy = await latencies(url, { headers: auth, ms: phaseMs, loops: 4 });
    uploads += await uploader.stop();
    busyP99.push(percentile(busy, 99));
    busyP50.push(percentile(busy, 50));
  }
  return {
    idleP99: median(idleP99),
    busyP99: median(busyP99),
    idleP50: median(idleP50),
    busyP50: median(busyP50),
    uploadsPerSecond: uploads / ((rounds * phaseMs) / 1000),
    uploads,
  };
}

export async function benchThumbnails(rounds = 5): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'bench-thumbnails-'));
  const children: ChildProcess[] = [];
  try {
    const { platformUrl, token, pid } = await startBenchPlatform(work, 4920, {}, children);

    // A realistic deck: 12 slides of text, charts and shapes (Helvetica, compressed streams).
    const deck = deckPdf(12);

    // S8″: single requests are short and noisy, so more rounds than the throughput measures; the
    // first two warm both sides up (JIT, pdf.js and its fonts, the platform's worker) and do not count.
    // The baseline's PNG is written on the platform's own file system, as its store writes.
    const bareStore = join(work, 'bare-store');
    mkdirSync(bareStore);
    const ours: number[] = [];
    const made: number[] = [];
    const afterAnswer: number[] = [];
    const bare: number[] = [];
    // Summed over the rounds: the platform's CPU is read in clock ticks of 10 ms.
    let oursCpuMs = 0;
    let bareCpuMs = 0;
    let pngBytes = 0;
    let probeId = 0;
    for (let i = 0; i < 2 * rounds + 2; i++) {
      const baseline = await bareRender(deck, bareStore);
      const ready = await uploadToReady({ platformUrl, token, pid }, deck);
      probeId = ready.id;
      if (i < 2) continue;
      bare.push(baseline.ms);
      ours.push(ready.ms);
      made.push(ready.madeMs);
      afterAnswer.push(ready.afterAnswerMs);
      oursCpuMs += ready.cpuMs;
      bareCpuMs += baseline.cpuMs;
      pngBytes = baseline.bytes;
    }

    // S1p: a 40 MB deck, as a pitch deck (its thumbnail made after the answer) and as a type
    // without thumbnails, in turns. Which goes first alternates: on this machine the first of two
    // uploads in a row was the slower one either way (0.83 with the pitch deck first, 1.42 with it
    // second, in one run), which a fixed order counted against one side. Each thumbnail is waited
    // for before the next upload, so that no render competes with an upload being timed. A single
    // 40 MB upload's rate moves a lot on a busy machine: twice the rounds of the other measures.
    // S3p: the platform's CPU from each request to its end (the pitch deck's: to its thumbnail).
    const large = await scannedDeckPdf(40 * 1024 * 1024);
    const megabytes = large.length / (1024 * 1024);
    const withThumbnail: number[] = [];
    const without: number[] = [];
    let withThumbnailCpuMs = 0;
    let withoutCpuMs = 0;
    const cpuMsOf = async (upload: () => Promise<number>) => {
      const ticks = cpuTicks(pid);
      const ms = await upload();
      return { ms, cpuMs: ((cpuTicks(pid) - ticks) * tickMicros) / 1000 };
    };
    const asPitchDeck = () =>
      cpuMsOf(async () => {
        const created = await createDeck(platformUrl, token, large);
        await thumbnailReady(platformUrl, token, created.thumbnailId!, 20);
        return created.ms;
      });
    const asOtherType = () =>
      cpuMsOf(
        async () =>
          (
            await createDeck(platformUrl, token, large, false, {
              file_type: 'additional_document',
              assetable_type: 'Investment',
            })
          ).ms,
      );
    for (let i = 0; i < 2 * rounds + 1; i++) {
      let a: { ms: number; cpuMs: number };
      let b: { ms: number; cpuMs: number };
      if (i % 2 === 0) {
        a = await asPitchDeck();
        b = await asOtherType();
      } else {
        b = await asOtherType();
        a = await asPitchDeck();
      }
      if (i === 0) continue;
      withThumbnail.push(megabytes / (a.ms / 1000));
      without.push(megabytes / (b.ms / 1000));
      withThumbnailCpuMs += a.cpuMs;
      withoutCpuMs += b.cpuMs;
    }

    // S2p: 8 of them at once; the platform's resident memory sampled every 10 ms from before the
    // uploads until the last thumbnail is made.
    const idleRss = rssBytes(pid);
    let peakRss = idleRss;
    const sampler = setInterval(() => {
      peakRss = Math.max(peakRss, rssBytes(pid));
    }, 10);
    try {
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          const created = await createDeck(platformUrl, token, large);
          await thumbnailReady(platformUrl, token, created.thumbnailId!, 20);
        }),
      );
    } finally {
      clearInterval(sampler);
    }
    const s2pMb = (peakRss - idleRss) / (1024 * 1024);

    // S9: the same GET load, idle and while uploads keep the thumbnail workers busy, interleaved.
    const uploaders = Number(process.env.BENCH_THUMBNAIL_UPLOADERS ?? 1);
    const s9 = await latencyUnderUploads(`${platformUrl}/v2/core/assets/${probeId}`, token, rounds, () =>
      startUploader(platformUrl, token, uploaders),
    );

    // S9c: thumbnails off, the same rate of uploads. A platform of its own, with only the S9 load.
    const control = await startBenchPlatform(work, 4921, { PDF_THUMBNAIL_WORKERS: '0' }, children);
    const controlProbe = await createDeck(control.platformUrl, control.token, deck, false);
    const s9c = await latencyUnderUploads(
      `${control.platformUrl}/v2/core/assets/${controlProbe.id}`,
      control.token,
      rounds,
      () => startUploader(control.platformUrl, control.token, uploaders, s9.uploadsPerSecond),
    );

    console.log(
      `\nthumbnails raw medians: upload to thumbnail ready ${median(ours).toFixed(0)} ms as the 5 ms poll saw it ` +
        `(${median(made).toFixed(0)} ms by the platform's own record, ${median(afterAnswer).toFixed(0)} ms of it after the 201) ` +
        `vs bare pdf.js render + PNG + durable write ` +
        `${median(bare).toFixed(0)} ms (deck ${(deck.length / 1024).toFixed(0)} KB, PNG ${(pngBytes / 1024).toFixed(0)} KB); ` +
        `GET p99 idle ${s9.idleP99.toFixed(1)} ms, while thumbnailing ${s9.busyP99.toFixed(1)} ms ` +
        `(p50 ${s9.idleP50.toFixed(1)} / ${s9.busyP50.toFixed(1)} ms); ${uploaders} uploader(s), ` +
        `${s9.uploads} thumbnails made during the busy phases (${s9.uploadsPerSecond.toFixed(1)}/s); ` +
        `control without thumbnails: p99 idle ${s9c.idleP99.toFixed(1)} ms, uploading ${s9c.busyP99.toFixed(1)} ms ` +
        `at ${s9c.uploadsPerSecond.toFixed(1)} uploads/s; ` +
        `${megabytes.toFixed(0)} MB deck: ${median(withThumbnail).toFixed(0)} MB/s as a pitch deck, ` +
        `${median(without).toFixed(0)} MB/s without a thumbnail, CPU ${(withThumbnailCpuMs / withThumbnail.length).toFixed(0)} ` +
        `vs ${(withoutCpuMs / without.length).toFixed(0)} ms per upload; 8 at once: RSS ${(idleRss / 2 ** 20).toFixed(0)} → ` +
        `${(peakRss / 2 ** 20).toFixed(0)} MB`,
    );
    return [
      {
        id: 'S8″',
        measure:
          "201's answer to the thumbnail's row committed ÷ bare pdf.js render + PNG encode + one durable write",
        ...roundRatios(afterAnswer.map((ms, i) => ms / bare[i]!)),
        beside:
          `${median(afterAnswer).toFixed(0)} vs ${median(bare).toFixed(0)} ms; as a polling client sees it, ` +
          `from the upload's start (S8′'s measure) ${median(ours.map((ms, i) => ms / bare[i]!)).toFixed(2)}; ` +
          `CPU ${(oursCpuMs / bareCpuMs).toFixed(2)} (${(oursCpuMs / ours.length).toFixed(0)} vs ${(bareCpuMs / bare.length).toFixed(0)} ms)`,
        target: '≤ 1.3',
      },
      {
        id: 'S1p',
        measure: '40 MB scanned deck as a pitch deck, MB/s ÷ the same bytes without a thumbnail',
        ...roundRatios(withThumbnail.map((mbps, i) => mbps / without[i]!)),
        target: '≥ 0.9',
      },
      {
        id: 'S3p',
        measure: 'CPU of that upload with its thumbnail ÷ the same bytes without a thumbnail',
        ratio: withThumbnailCpuMs / withoutCpuMs,
        target: 'none: what the thumbnail adds',
      },
      {
        id: 'S2p',
        measure: 'peak RSS growth, 8 concurrent 40 MB scanned decks until their thumbnails are made (MB)',
        ratio: s2pMb,
        target: '≤ 300',
      },
      {
        id: 'S9',
        measure: 'GET asset p99 while thumbnailing ÷ idle p99',
        ratio: s9.busyP99 / s9.idleP99,
        target: '≤ 2',
      },
      {
        id: 'S9c',
        measure: 'control: the same uploads, thumbnails off ÷ idle p99',
        ratio: s9c.busyP99 / s9c.idleP99,
        target: 'none: what S9 owes to the uploads alone',
      },
    ];
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(200);
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv[1]?.endsWith('thumbnails.ts') && process.argv[2] === 'upload') {
  // The uploader of S9 (startUploader): uploads until it is stopped, one thumbnail at a time per loop.
  const deck = deckPdf(12);
  const loops = Number(process.env.BENCH_THUMBNAIL_UPLOADERS ?? 1);
  const perSecond = Number(process.env.BENCH_UPLOADS_PER_SECOND ?? 0);
  const upload = async () => {
    const started = performance.now();
    for (let made = 0; ; made++) {
      // Paced: upload number `made` (of all loops) is due at made / perSecond seconds.
      if (perSecond > 0) await sleep(started + ((made * loops) / perSecond) * 1000 - performance.now());
      const url = process.env.BENCH_PLATFORM_URL!;
      const token = process.env.BENCH_TOKEN!;
      const created = await createDeck(url, token, deck, perSecond === 0);
      // The 201 no longer waits for the thumbnail: waiting for it here keeps one being made at a
      // time per loop, as S9 means, instead of a queue that would go on rendering into the idle phase.
      if (created.thumbnailId) await thumbnailReady(url, token, created.thumbnailId, 20);
      process.stdout.write('.\n');
    }
  };
  await Promise.all(Array.from({ length: loops }, upload));
} else if (process.argv[1]?.endsWith('thumbnails.ts')) {
  // Run on its own: `tsx scripts/bench/thumbnails.ts`.
  printRows(await benchThumbnails());
}
