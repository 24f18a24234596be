import { readdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  encryptedPdf,
  garbagePdf,
  inflatingPdf,
  landscapePdf,
  largePdf,
  redHalfPdf,
  slowPdf,
  threePagePdf,
  truncatedPdf,
  unreadablePdf,
} from '../testing/pdf-files';
import {
  createPdfThumbnailPool,
  type PdfThumbnailPool,
  type PdfThumbnailPoolOptions,
} from './pdf-thumbnail-pool';
import { scannedDeckPdf } from '../testing/scanned-deck';
import { pollUntil } from '../testing/thumbnails';

// Renders at normal priority: on a machine kept busy by other work, SCHED_IDLE renders would starve.
const options = { workers: 1, timeoutMs: 10_000, maxBytes: 1 << 20, lowPriority: false };
const pools: PdfThumbnailPool[] = [];
function pool(overrides: Partial<PdfThumbnailPoolOptions> = {}) {
  const created = createPdfThumbnailPool({ ...options, ...overrides });
  pools.push(created);
  return created;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});
// One pool with the defaults for the tests that do not need a fresh one (a worker takes ~1 s to start).
let shared: PdfThumbnailPool;
beforeAll(() => {
  shared = createPdfThumbnailPool(options);
});
afterAll(() => shared.close());

/** A PDF in memory as the pool reads stored ones: by range; `read` counts the bytes handed over. */
function source(bytes: Buffer) {
  const counted = { bytesRead: 0, reads: 0 };
  return Object.assign(counted, {
    size: bytes.length,
    read: async (range: { start: number; end: number }) => {
      counted.reads += 1;
      const slice = new Uint8Array(bytes.subarray(range.start, range.end + 1));
      counted.bytesRead += slice.length;
      return slice;
    },
  });
}

const render = (p: PdfThumbnailPool, bytes: Buffer) => p.render(source(bytes));

/** The reason a render was refused, or 'rendered'. */
const outcome = (promise: Promise<unknown>) =>
  promise.then(
    () => 'rendered',
    (error: { reason?: string }) => error.reason ?? String(error),
  );

/** RGB of the pixel at (x, y) of a PNG. */
async function pixel(png: Buffer, x: number, y: number) {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * info.channels;
  return [data[at], data[at + 1], data[at + 2]];
}

/** This process and those it started, and theirs (the pool's render processes), from /proc on Linux. */
function processTree(pid: number | 'self' = 'self'): (number | 'self')[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const listed = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      return listed ? listed.split(' ').map(Number) : [];
    } catch {
      return []; // Ended meanwhile.
    }
  });
  return [pid, ...children.flatMap((child) => processTree(child))];
}

/** Samples the summed resident memory of some processes every 20 ms; `stop` answers its peak, in MB. */
function sampleTotalRss(pids: () => (number | 'self')[]) {
  let peakMb = 0;
  const timer = setInterval(() => {
    const totalKb = pids().reduce<number>((sum, pid) => {
      try {
        const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
        return sum + (kb ? Number(kb[1]) : 0);
      } catch {
        return sum; // Ended meanwhile.
      }
    }, 0);
    peakMb = Math.max(peakMb, totalKb / 1024);
  }, 20);
  return {
    stop() {
      clearInterval(timer);
      return peakMb;
    },
  };
}

/**
 * Threads of this process and of its render processes at the lowest CPU priority (SCHED_IDLE, or
 * nice 19), from /proc on Linux. After the command name, `stat` holds field 3 onwards: nice is
 * field 19, the policy field 41.
 */
function lowPriorityThreads() {
  return processTree().reduce<number>((count, pid) => {
    try {
      return (
        count +
        readdirSync(`/proc/${pid}/task`).filter((tid) => {
          const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
          const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
          const [nice, policy] = [Number(fields[19 - 3]), Number(fields[41 - 3])];
          return policy === 5 || nice === 19;
        }).length
      );
    } catch {
      return count; // Ended meanwhile.
    }
  }, 0);
}

/**
 * CPU time of this process and of the child processes it has waited for (render processes ended),
 * in ms: utime, stime, cutime and cstime, fields 14 to 17 of /proc/self/stat, in ticks of 10 ms.
 */
function cpuMsWithEndedChildren() {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return fields.slice(14 - 3, 18 - 3).reduce((sum, ticks) => sum + Number(ticks) * 10, 0);
}

/** The low-priority threads counted once the pool's worker renders: when it reads a job's file. */
const lowPriorityThreadsWhenRendering = (p: PdfThumbnailPool) =>
  new Promise<number>((resolve) => {
    p.render({
      size: 100,
      read: async () => {
        resolve(lowPriorityThreads());
        throw new Error('no file needed');
      },
    }).catch(() => undefined);
  });

// A new pool's worker loads pdf.js first: seconds on a busy machine before its first render.
describe('PDF thumbnail pool', { timeout: 180_000 }, () => {
  it('renders page 1 of a multi-page PDF, fitted within 1024 px, into a PNG', async () => {
    const thumbnail = await render(shared, await threePagePdf());
    // US Letter (612 × 792 pt) scaled so the longer side is 1024 px.
    expect([thumbnail.width, thumbnail.height]).toEqual([791, 1024]);
    const meta = await sharp(thumbnail.png).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 791, 1024]);
    // Opaque paper: three channels, no alpha to store.
    expect([meta.channels, meta.hasAlpha]).toEqual([3, false]);
    // Page 1: red on the left half, white (paper) on the right; pages 2 and 3 are blue and green.
    expect(await pixel(thumbnail.png, 100, 500)).toEqual([255, 0, 0]);
    expect(await pixel(thumbnail.png, 690, 500)).toEqual([255, 255, 255]);
  });

  it('keeps the shape of a landscape page', async () => {
    const thumbnail = await render(shared, await landscapePdf());
    expect([thumbnail.width, thumbnail.height]).toEqual([1024, 576]);
    // Blue on the top half (PDF y grows upwards, images downwards).
    expect(await pixel(thumbnail.png, 500, 100)).toEqual([0, 0, 255]);
    expect(await pixel(thumbnail.png, 500, 500)).toEqual([255, 255, 255]);
  });

  it('applies a configured side and pixel limit', async () => {
    const small = await render(pool({ maxSide: 200 }), await redHalfPdf());
    expect([small.width, small.height]).toEqual([155, 200]);
    const fewPixels = await render(pool({ maxPixels: 10_000 }), await redHalfPdf());
    expect(fewPixels.width * fewPixels.height).toBeLessThanOrEqual(10_000);
    expect(fewPixels.height).toBeGreaterThan(100);
  });

  it('says why a PDF cannot be rendered: encrypted, damaged, too large, turned off', async () => {
    const p = shared;
    expect(await outcome(render(p, encryptedPdf()))).toBe('encrypted');
    expect(await outcome(render(p, garbagePdf()))).toBe('invalid_pdf');
    expect(await outcome(render(p, truncatedPdf()))).toBe('invalid_pdf');
    const tooLarge = { ...source(Buffer.alloc(0)), size: 2 << 20 };
    expect(await outcome(p.render(tooLarge))).toBe('too_large');
    expect(tooLarge.reads).toBe(0);
    expect(await outcome(render(pool({ workers: 0 }), await redHalfPdf()))).toBe('disabled');
    // The same worker goes on rendering good files after bad ones.
    expect(await outcome(render(p, await redHalfPdf()))).toBe('rendered');
  });

  it('makes no thumbnail of a page whose content cannot be read whole: a blank or partial page is not the page', async () => {
    const p = shared;
    // Stopped before its first operator: pdf.js would draw a blank page and say nothing.
    expect(await outcome(render(p, unreadablePdf('first')))).toBe('unreadable');
    // Stopped part-way: pdf.js would draw the blue half it read, without the red one.
    expect(await outcome(render(p, unreadablePdf('after-blue')))).toBe('unreadable');
    // The same worker goes on drawing whole pages.
    const drawn = await render(p, await redHalfPdf());
    expect(await pixel(drawn.png, 10, 10)).toEqual([255, 0, 0]);
  });

  it('renders at the lowest CPU priority unless told not to, so that requests win over renders', async () => {
    const before = lowPriorityThreads();
    expect(await lowPriorityThreadsWhenRendering(pool({ lowPriority: false }))).toBe(before);
    const { lowPriority: _, ...defaults } = options;
    const lowered = createPdfThumbnailPool(defaults);
    pools.push(lowered);
    // The render process's threads.
    expect(await lowPriorityThreadsWhenRendering(lowered)).toBeGreaterThan(before);
  });

  it('ends a render past its time limit and replaces the worker', async () => {
    const p = pool({ timeoutMs: 400 });
    await render(p, await redHalfPdf()); // The process is up, so only the render is timed.
    const cpu = cpuMsWithEndedChildren();
    expect(await outcome(render(p, slowPdf()))).toBe('timeout');
    // The ended process was replaced; by the time the next render is drawn it has been waited for.
    expect(await outcome(render(p, await redHalfPdf()))).toBe('rendered');
    // Seconds of drawing (about 7 s of CPU) were cut off near the limit. The limit counts the
    // render's CPU time, so this holds however long a busy machine kept the process waiting.
    expect(cpuMsWithEndedChildren() - cpu).toBeLessThan(3000);
  });

  it('ends a render whose process grows past its memory limit, and draws the next file in a fresh one', async () => {
    const p = pool({ maxRssMb: 300, timeoutMs: 600_000 });
    await render(p, await redHalfPdf());
    // A page that inflates to 400 MB: its process is ended near 300 MB, whatever its JavaScript heap.
    expect(await outcome(render(p, await inflatingPdf(400 * 1024 * 1024)))).toBe('memory_limit');
    expect(await outcome(render(p, await redHalfPdf()))).toBe('rendered');
  });

  it('replaces a render process that a render left larger, so that the memory goes back', async () => {
    const renderProcesses = () => processTree().slice(1);
    const others = new Set(renderProcesses());
    const p = pool({ maxRssMb: 1024, recycleGrowthMb: 64, timeoutMs: 600_000 });
    await render(p, await redHalfPdf());
    const [first, ...more] = renderProcesses().filter((pid) => !others.has(pid));
    expect(more).toEqual([]);
    // A blank page whose content inflates to 200 MB: drawn, and its process kept what it decoded.
    expect(await outcome(render(p, await inflatingPdf(200 * 1024 * 1024)))).toBe('rendered');
    // Replaced: the first process is gone, and another renders the next file.
    await pollUntil('the render process to be replaced', () =>
      renderProcesses().includes(first!) ? undefined : true,
    );
    expect(await outcome(render(p, await redHalfPdf()))).toBe('rendered');
    expect(renderProcesses().filter((pid) => !others.has(pid))).toHaveLength(1);
  });

  it('ends the largest render once the render processes together pass the pool budget, and leaves a render alone within its own limit', async () => {
    const budgetMb = 350;
    const others = new Set(processTree().slice(1));
    const p = pool({ workers: 2, maxRssMb: 1024, poolMaxRssMb: budgetMb, timeoutMs: 600_000 });
    // Both processes up, so the two renders below run side by side from the start.
    await Promise.all([render(p, await redHalfPdf()), render(p, await redHalfPdf())]);
    const inflating = await inflatingPdf(200 * 1024 * 1024);
    // A page that inflates to 200 MB beside a small one whose bytes are slow to come: together past
    // the budget, so the larger is ended; the small one is drawn once its bytes arrive.
    const small = await redHalfPdf();
    let bytesArrive!: () => void;
    const arrived = new Promise<void>((resolve) => (bytesArrive = resolve));
    const waiting = outcome(
      p.render({ size: small.length, read: async (range) => (await arrived, source(small).read(range)) }),
    );
    const large = await outcome(render(p, inflating));
    bytesArrive();
    expect([large, await waiting]).toEqual(['memory_limit', 'rendered']);
    // Alone, the same page takes the pool past its budget and is drawn: its own limit bounds it.
    const sampler = sampleTotalRss(() =>
      processTree()
        .slice(1)
        .filter((pid) => !others.has(pid)),
    );
    expect(await outcome(render(p, inflating))).toBe('rendered');
    expect(sampler.stop()).toBeGreaterThan(budgetMb);
  });

  it('says whether a render handed over now would begin at once: only with a worker ready and free', async () => {
    const p = pool({ timeoutMs: 60_000 });
    // No worker started yet: a render would wait for pdf.js to load.
    expect(p.hasIdleWorker()).toBe(false);
    expect(await outcome(render(p, await redHalfPdf()))).toBe('rendered');
    expect(p.hasIdleWorker()).toBe(true);
    // The one worker is drawing (seconds of it): the next render would wait.
    const slow = outcome(render(p, slowPdf()));
    expect(p.hasIdleWorker()).toBe(false);
    await p.close();
    expect(await slow).toBe('closed');
    expect(p.hasIdleWorker()).toBe(false);
  });

  it('PT4 reads only what page 1 needs of a large PDF, by range, and never the rest', async () => {
    const large = largePdf(50 * 1024 * 1024);
    const file = source(large);
    const thumbnail = await pool({ maxBytes: large.length }).render(file);
    expect(await pixel(thumbnail.png, 100, 500)).toEqual([255, 0, 0]);
    // The trailer, the cross-reference table and page 1's objects: a few 64 KB ranges of 50 MB.
    expect(file.bytesRead).toBeLessThan(1024 * 1024);
    expect(file.reads).toBeLessThan(10);
  });

  it('draws page 1 of a deck of scanned slides as pdfkit writes it, reading a small part of the file', async () => {
    const deck = await scannedDeckPdf(20 * 1024 * 1024);
    const file = source(deck);
    const thumbnail = await pool({ maxBytes: deck.length }).render(file);
    expect([thumbnail.width, thumbnail.height]).toEqual([1024, 576]);
    // The slide's navy title bar (#1c3a73 under the grain) and its light paper below.
    const navy = [0x1c, 0x3a, 0x73];
    const bar = await pixel(thumbnail.png, 20, 20);
    expect(bar.reduce<number>((off, value, i) => off + Math.abs(value! - navy[i]!), 0)).toBeLessThan(60);
    expect(Math.min(...(await pixel(thumbnail.png, 20, 560)).map(Number))).toBeGreaterThan(190);
    // Page 1's image (a megabyte), the table, and a 64 KB chunk at each page object: pdf.js walks
    // the page tree to its last page, and pdfkit writes each page's object after that page's image.
    expect(file.bytesRead).toBeLessThan(deck.length / 5);
  });

  it('reads a PDF within one 64 KB chunk once, with the job, and no more', async () => {
    const small = await threePagePdf();
    expect(small.length).toBeLessThan(64 * 1024);
    const file = source(small);
    await shared.render(file);
    // pdf.js takes the chunk it was given rather than asking for it again.
    expect([file.reads, file.bytesRead]).toEqual([1, small.length]);
  });

  it('fails the render when the file cannot be read (deleted meanwhile), and goes on with the next', async () => {
    const bytes = await threePagePdf();
    const failing = {
      size: bytes.length,
      read: async () => {
        throw new Error('the stored PDF is gone');
      },
    };
    expect(await outcome(shared.render(failing))).toBe('read_failed');
    expect(await outcome(render(shared, await redHalfPdf()))).toBe('rendered');
  });

  it('bounds the queue, reads nothing of a waiting file, and refuses jobs once closed', async () => {
    const p = pool({ maxQueue: 1, timeoutMs: 3000 });
    await render(p, await redHalfPdf());
    const slow = outcome(render(p, slowPdf()));
    const waiting = source(await redHalfPdf());
    const queued = outcome(p.render(waiting));
    expect(await outcome(render(p, await redHalfPdf()))).toBe('busy');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(waiting.reads).toBe(0);
    await p.close();
    expect(await slow).toBe('closed');
    expect(await queued).toBe('closed');
    expect(waiting.reads).toBe(0);
    expect(await outcome(render(p, await redHalfPdf()))).toBe('closed');
  });
});
