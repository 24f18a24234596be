import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { assetEnvelopeSchema, type Asset } from '../../shared/assets/asset';
import { childPlatformFixture } from '../testing/child-platform';
import { multipartBody } from '../testing/files';
import { deckPdf, inflatingPdf } from '../testing/pdf-files';
import { bearer, type TestPlatform, tokensFor } from '../testing/platform-server';
import { pollUntil } from '../testing/thumbnails';

/**
 * The platform as people run it, in a process of its own, so that its memory is its own to read.
 * Renders at normal priority (SCHED_IDLE ones would starve on a machine kept busy by other work)
 * and with a time limit no render here reaches: memory, not time, is what stops a hostile PDF.
 */
const renderLimitMb = 512;
const child = childPlatformFixture('platform-thumbnail-memory-', {
  PDF_THUMBNAIL_WORKERS: '2',
  PDF_THUMBNAIL_LOW_PRIORITY: '0',
  PDF_THUMBNAIL_TIMEOUT_MS: '600000',
  PDF_RENDER_MAX_RSS_MB: String(renderLimitMb),
  // Seven pollers and the probe read far more than a person does.
  API_RATE_LIMIT: '100000',
});
afterAll(() => child.dispose());

const mb = 1024 * 1024;

/** Resident memory of a process in bytes (0 once it is gone), from /proc/<pid>/status. */
function rss(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return kb ? Number(kb[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** The processes a process started, and theirs, from /proc/<pid>/task/<tid>/children. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      const listed = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      if (listed) children = children.concat(listed.split(' ').map(Number));
    }
  } catch {
    // Gone meanwhile.
  }
  return children.flatMap((c) => [c, ...descendants(c)]);
}

/** The platform's own memory, and its with the processes it started (PDF renders) counted in. */
function memory(pid: number) {
  const own = rss(pid);
  const helpers = descendants(pid).map(rss);
  return { own, total: own + helpers.reduce((a, b) => a + b, 0), largestHelper: Math.max(0, ...helpers) };
}

/** Samples memory until stopped, keeping the peaks. */
function sampleMemory(pid: number) {
  const peak = { own: 0, total: 0, largestHelper: 0 };
  const timer = setInterval(() => {
    const now = memory(pid);
    peak.own = Math.max(peak.own, now.own);
    peak.total = Math.max(peak.total, now.total);
    peak.largestHelper = Math.max(peak.largestHelper, now.largestHelper);
  }, 20);
  return { peak, stop: () => clearInterval(timer) };
}

const inMb = (bytes: number) => Math.round(bytes / mb);

it('PT5 keeps hostile PDFs from taking the memory: their renders end past the limit, the platform answers throughout and comes back to its idle memory', async () => {
  const platform = (await child.start()) as TestPlatform;
  const pid = child.pid()!;
  const { url } = platform;
  const token = (await tokensFor(platform, 'issuer@demo.test')).access_token;
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
    expect(response.status, await response.clone().text()).toBe(201);
    return assetEnvelopeSchema.parse(await response.json()).asset;
  };
  const get = async (id: number | string) => {
    const response = await fetch(`${url}/v2/core/assets/${id}`, { headers: bearer(token) });
    expect(response.status).toBe(200);
    return assetEnvelopeSchema.parse(await response.json()).asset;
  };
  const thumbnailMade = (id: number | string) =>
    pollUntil(`thumbnail ${id} to be made`, async () => ((await get(id)).pending ? undefined : true));
  /** Waits until the parent's thumbnail is made or cleared; answers whether it still has one. */
  const thumbnailSettled = (parentId: number | string) =>
    pollUntil(`the thumbnail of asset ${parentId} to be made or cleared`, async () => {
      const thumbnailId = (await get(parentId)).thumbnail_id;
      if (thumbnailId === undefined) return false;
      // A thumbnail dropped since the parent was read is gone (404): the next look sees it cleared.
      const thumbnail = await fetch(`${url}/v2/core/assets/${thumbnailId}`, { headers: bearer(token) });
      if (!thumbnail.ok) return undefined;
      return assetEnvelopeSchema.parse(await thumbnail.json()).asset.pending ? undefined : true;
    });

  // Warm: the render processes are up and have drawn a deck, as on a platform that has been running.
  const warm = await upload('warm.pdf', deckPdf());
  await thumbnailMade(warm.thumbnail_id!);
  const idle = memory(pid);

  const hostile = await inflatingPdf(300 * mb);
  expect(hostile.length).toBeLessThan(mb);
  const sampler = sampleMemory(pid);
  // The API answers while the renders run: a read every 100 ms, each within a few seconds.
  let answering = true;
  let slowestMs = 0;
  const probe = (async () => {
    while (answering) {
      const started = performance.now();
      await get(warm.id);
      slowestMs = Math.max(slowestMs, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();

  const { peak } = sampler;
  let hasThumbnail: boolean[];
  try {
    const uploads = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => upload(`hostile-${i}.pdf`, hostile)),
      upload('deck.pdf', deckPdf()),
    ]);
    const normal = uploads.pop()!;
    hasThumbnail = await Promise.all(uploads.map((a) => thumbnailSettled(a.id)));
    await thumbnailMade(normal.thumbnail_id!);
  } finally {
    // Said whatever happened: the figures docs/benchmarks.md reports.
    answering = false;
    sampler.stop();
    console.info(
      `PT5 memory (MB): idle ${inMb(idle.own)} (with render processes ${inMb(idle.total)}), ` +
        `peak ${inMb(peak.own)} (${inMb(peak.total)}; largest render process ${inMb(peak.largestHelper)}); ` +
        `slowest read ${Math.round(slowestMs)} ms`,
    );
  }
  await probe;
  // Back near idle memory once the renders are over (polled: a render process ends and is replaced).
  let now = memory(pid);
  try {
    await pollUntil(
      'the platform to come back to its idle memory',
      () => {
        now = memory(pid);
        return now.own <= idle.own + 100 * mb && now.total <= idle.total + 100 * mb ? true : undefined;
      },
      60_000,
    );
  } finally {
    console.info(`PT5 memory (MB) after the renders: ${inMb(now.own)} (${inMb(now.total)})`);
  }

  // Every hostile page is cleared: none is drawn (blank) within the limit, whichever way its render
  // met the limit (a crash, a refused allocation that pdf.js warned of, or one that it dropped).
  expect(hasThumbnail).toEqual(Array(6).fill(false));
  // The platform's own memory hardly moves; a render process never passes its limit: its data
  // segment is limited, so the allocation that would pass it fails. Resident memory also counts the
  // pages of Node's binary and libraries (file-backed, outside that limit): about 50 MB.
  const overshootMb = 64;
  expect(inMb(peak.own - idle.own)).toBeLessThan(150);
  expect(inMb(peak.largestHelper)).toBeLessThan(renderLimitMb + overshootMb);
  // The two render processes, each within its limit, and the platform.
  expect(inMb(peak.total)).toBeLessThan(inMb(peak.own) + 2 * (renderLimitMb + overshootMb));
  // Together the render processes stay near the pool's budget (PDF_RENDER_POOL_MAX_RSS_MB, by default
  // this limit + 128): the largest of two renders is ended once they pass it, so the whole stays
  // within the 1 GB (823–881 MB in the nine runs that set this).
  expect(inMb(peak.total)).toBeLessThanOrEqual(1024);
  expect(slowestMs).toBeLessThan(5000);
  // What an operator reads in the log: each hostile PDF went without a thumbnail, and why. The log
  // goes out in batches (up to 200 ms after the line), so the sixth line may follow its thumbnail.
  const reasons = () =>
    child.logs
      .map((line) => JSON.parse(line) as { msg?: string; reason?: string })
      .filter((l) => l.msg === 'PDF uploaded without a thumbnail')
      .map((l) => l.reason);
  await pollUntil(
    'six lines on PDFs left without a thumbnail',
    () => (reasons().length >= 6 ? true : undefined),
    10_000,
  ).catch(() => undefined);
  expect(reasons()).toEqual(Array(6).fill('memory_limit'));
}, 600_000);
