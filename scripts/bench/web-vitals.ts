/**
 * W4 of docs/performance.md: lab LCP, INP and CLS of the web app's main pages in headless
 * Chromium under a throttled mobile profile (Lighthouse's: a 412 × 823 phone, 4× slower CPU, 150 ms
 * round trips, 1.6 Mb/s down, 750 kb/s up), each as a ratio to web.dev's "good" threshold (2.5 s,
 * 200 ms, 0.1); the target is ≤ 0.8. `BENCH_ONLY=web npm run bench` runs it alone; it builds the app
 * first, and starts a platform and a proxy of its own. Medians of `rounds` fresh page loads.
 *   landing   the signed-out page
 *   home      the signed-in home (the session is renewed through the proxy's cookie on load)
 *   entity    a product page with an image, a PDF and a CSV; INP from opening and closing a rename,
 *             and from committing one (Enter: the list shows the new name at once) and back
 *   viewer    on that page, opening the 12-page deck in the viewer: the time from the press on Open
 *             until page 1 is on screen, as the platform's thumbnail or drawn by pdf.js, whichever is
 *             first (as LCP stops at the first input, this stands in for it); and the INP of that click
 *   W4v       the same press, until page 1 is on screen sharp (a picture with a device pixel for each
 *             pixel it covers: the platform's page-1 rendering sized to the screen, or pdf.js's canvas),
 *             ≤ 2.0 s, and the bytes that came over the network from pointing at Open until then
 *             (headers and bodies as sent, compressed; each request listed), ≤ 250 KB; beside them, the
 *             same two until page 1 is drawn by pdf.js (reported: pdf.js and its worker alone are about
 *             400 KB, docs/performance.md); and the press on the cropped photo's Open until its fitted
 *             picture (the rendition sized to the viewer) has loaded, ≤ 1.5 s
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { get as httpGet } from 'node:http';
import { expect, type BrowserContext, type CDPSession, type Page, type Request } from '@playwright/test';
import sharp from 'sharp';
import { deckPdf } from '../../src/platform/testing/pdf-files';
import { type BenchRow, median, printRows, sleep } from './common';
import { buildWebApp, startWebStack } from './web-stack';

/** web.dev's "good" thresholds. */
const good = { lcp: 2500, inp: 200, cls: 0.1 };

/** A short description of an element, for saying what the largest paint or a shift was. */
type Vitals = {
  lcp: number;
  cls: number;
  inp: number;
  lcpElement: string;
  shifted: string[];
  /** Each interaction's longest event: its type and duration (ms). */
  interactions: string[];
};

/**
 * Collects the page's metrics from the moment it starts: the last largest-contentful-paint (and what
 * it was), the layout shifts not caused by input (and what moved), and the longest interaction (INP
 * with a handful of interactions).
 */
const observeVitals = () => {
  // A method, not a function in a variable: tsx would wrap that in a helper the page does not have.
  const say = {
    describe(node: Node | null | undefined) {
      if (!node || !(node instanceof Element)) return '?';
      const text = (node.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 40);
      const kind = node.className ? `.${String(node.className).split(' ')[0]}` : '';
      return `${node.tagName.toLowerCase()}${kind} "${text}"`;
    },
  };
  const vitals: Vitals = { lcp: 0, cls: 0, inp: 0, lcpElement: '', shifted: [], interactions: [] };
  const longest = new Map<number, { name: string; duration: number }>();
  (window as unknown as { __vitals: Vitals }).__vitals = vitals;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { element?: Element | null })[]) {
      vitals.lcp = entry.startTime;
      vitals.lcpElement = say.describe(entry.element);
    }
  }).observe({ type: 'largest-contentful-paint', buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & {
      value: number;
      hadRecentInput: boolean;
      sources?: { node?: Node | null }[];
    })[])
      if (!entry.hadRecentInput) {
        vitals.cls += entry.value;
        for (const source of entry.sources ?? [])
          vitals.shifted.push(`${say.describe(source.node)} ${entry.value.toFixed(3)}`);
      }
  }).observe({ type: 'layout-shift', buffered: true });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as (PerformanceEntry & { interactionId?: number })[]) {
      if (!entry.interactionId) continue;
      vitals.inp = Math.max(vitals.inp, entry.duration);
      if (entry.duration > (longest.get(entry.interactionId)?.duration ?? -1))
        longest.set(entry.interactionId, { name: entry.name, duration: entry.duration });
      vitals.interactions = [...longest.values()].map((i) => `${i.name} ${i.duration.toFixed(0)}`);
    }
  }).observe({ type: 'event', buffered: true, durationThreshold: 16 } as PerformanceObserverInit);
};

/**
 * When the requests a signed-in page waits for had their answers (ms from the start of navigation):
 * the page, the app's code, the session's renewal and the platform's first reads. Where the time went.
 */
async function requestTimeline(page: Page): Promise<string> {
  return page.evaluate(() => {
    const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming;
    const fcp = performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? 0;
    const parts = [`html ${nav.responseEnd.toFixed(0)}`, `fcp ${fcp.toFixed(0)}`];
    for (const entry of performance.getEntriesByType('resource') as PerformanceResourceTiming[]) {
      const url = new URL(entry.name);
      const name = url.pathname.startsWith('/assets/index-')
        ? url.pathname.endsWith('.css')
          ? 'css'
          : 'app.js'
        : url.pathname.startsWith('/oauth/') || url.pathname.startsWith('/v2/core/')
          ? url.pathname.replace('/v2/core/', '').replace(/\/download_url$/, '/url')
          : null;
      if (name) parts.push(`${name} ${entry.startTime.toFixed(0)}–${entry.responseEnd.toFixed(0)}`);
    }
    return parts.join(', ');
  });
}

async function throttle(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Profiler.enable');
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: 150,
    downloadThroughput: (1.6 * 1024 * 1024) / 8,
    uploadThroughput: (750 * 1024) / 8,
  });
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  return cdp;
}

/**
 * `BENCH_WEB_PROFILE=<folder>`: the page's load is recorded with V8's profiler and written there as
 * `<name>.cpuprofile` and as a Chromium trace, `<name>.trace.json` (open either in Chromium's DevTools,
 * Performance), to see where the time goes.
 */
async function profiled<T>(page: Page, cdp: CDPSession, name: string, load: () => Promise<T>): Promise<T> {
  const folder = process.env.BENCH_WEB_PROFILE;
  if (!folder) return load();
  const browser = page.context().browser()!;
  await browser.startTracing(page, {
    categories: [
      'toplevel',
      'devtools.timeline',
      'disabled-by-default-devtools.timeline',
      'v8',
      'blink.user_timing',
      'loading',
    ],
  });
  await cdp.send('Profiler.start');
  const result = await load();
  const { profile } = await cdp.send('Profiler.stop');
  const trace = await browser.stopTracing();
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, `${name}.cpuprofile`), JSON.stringify(profile));
  writeFileSync(join(folder, `${name}.trace.json`), trace);
  return result;
}

/** One request the browser made: when it started and ended (epoch ms) and its bytes on the wire. */
type Fetched = { url: string; startedAt: number; endedAt: number; bytes: number };

/**
 * Every request the page and its workers make from now on: when it started and finished and the bytes
 * it brought (headers and body as sent, compressed). The page's own come from the browser's network
 * events (CDP's). A dedicated worker's script is fetched for the worker, out of those events' sight
 * (pdf.js's worker, 300 KB and more, went uncounted that way): Playwright sees it without its size,
 * so it is asked for again here as the browser asked for it (Brotli or gzip) and its bytes counted.
 * A request answered from the browser's cache brings none.
 */
function recordRequests(page: Page, cdp: CDPSession) {
  const fetched = new Map<string, Fetched>();
  /** What Playwright saw finish, to be counted where CDP's page events saw no end of it. */
  const seen: Request[] = [];
  /** CDP's clock (s, monotonic) to epoch ms, from a request's pair of them. */
  let epochOffsetMs: number | undefined;
  const onSent = (event: {
    requestId: string;
    timestamp: number;
    wallTime: number;
    request: { url: string };
  }) => {
    epochOffsetMs ??= event.wallTime * 1000 - event.timestamp * 1000;
    fetched.set(event.requestId, {
      url: event.request.url,
      startedAt: event.timestamp * 1000 + epochOffsetMs,
      endedAt: Infinity,
      bytes: 0,
    });
  };
  const onFinished = (event: { requestId: string; timestamp: number; encodedDataLength: number }) => {
    const request = fetched.get(event.requestId);
    if (!request || epochOffsetMs === undefined) return;
    request.endedAt = event.timestamp * 1000 + epochOffsetMs;
    request.bytes = event.encodedDataLength;
  };
  const onPlaywrightFinished = (request: Request) => void seen.push(request);
  /** A worker's script: the page's events announce it but never see it end (it ends in the worker's). */
  async function unseenByCdp(): Promise<Fetched[]> {
    const endedForCdp = new Set([...fetched.values()].filter((f) => f.bytes > 0).map((f) => f.url));
    return Promise.all(
      seen
        .filter((request) => !endedForCdp.has(request.url()))
        .map(async (request) => {
          const timing = request.timing();
          const [{ responseHeadersSize }, encoding] = await Promise.all([
            request.sizes(),
            request.headerValue('accept-encoding'),
          ]);
          return {
            url: request.url(),
            startedAt: timing.startTime,
            endedAt: timing.startTime + timing.responseEnd,
            bytes: responseHeadersSize + (await bodyBytesAsSent(request.url(), encoding ?? '')),
          };
        }),
    );
  }
  cdp.on('Network.requestWillBeSent', onSent);
  cdp.on('Network.loadingFinished', onFinished);
  page.on('requestfinished', onPlaywrightFinished);
  return {
    /** The requests that started at `from` or later and had finished by `until` (epoch ms). */
    between: async (from: number, until: number) =>
      [...fetched.values(), ...(await unseenByCdp())].filter(
        (f) => f.startedAt >= from && f.endedAt <= until && f.bytes > 0,
      ),
    stop: () => {
      cdp.off('Network.requestWillBeSent', onSent);
      cdp.off('Network.loadingFinished', onFinished);
      page.off('requestfinished', onPlaywrightFinished);
    },
  };
}

/** The body's bytes as the server sends them to a browser accepting `encoding`, not decompressed. */
function bodyBytesAsSent(url: string, encoding: string): Promise<number> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers: { 'accept-encoding': encoding } }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.length));
      response.on('end', () => resolve(bytes));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** A request's short name for the printout: the app's file without its build hash, or the platform's path. */
function shortName(url: string) {
  const { pathname, searchParams } = new URL(url);
  const width = searchParams.get('width');
  const name = pathname.startsWith('/assets/')
    ? pathname.slice('/assets/'.length).replace(/-[\w-]{8}(?=\.m?js$)/, '')
    : pathname.replace(/^\/v2\/core\/assets\/\d+/, 'asset').replace(/^(.{28}).+/, '$1…');
  return width ? `${name} (${width} px)` : name;
}

/**
 * Runs in the page: from the next press on the page (the pointer going down on Open), the ms until
 * `seen()` first holds, checked every frame, and that press's epoch time.
 */
const afterNextPress = () => {
  const w = window as unknown as {
    __afterPress: (seen: () => boolean) => Promise<{ ms: number; pressedAt: number }>;
  };
  const pressed = new Promise<number>((resolve) =>
    document.addEventListener('pointerdown', (event) => resolve(event.timeStamp), {
      capture: true,
      once: true,
    }),
  );
  w.__afterPress = (seen) =>
    new Promise((resolve) => {
      const frames = {
        look() {
          if (!seen()) return void requestAnimationFrame(frames.look);
          const at = performance.now();
          void pressed.then((press) =>
            resolve({ ms: at - press, pressedAt: performance.timeOrigin + press }),
          );
        },
      };
      requestAnimationFrame(frames.look);
    });
};

/**
 * Opens `name` in the in-app viewer. From the press on Open, the ms until page 1 was on screen: at all
 * (the card's small thumbnail, or more), sharp (a picture of it with at least a device pixel for each
 * pixel it covers — the platform's rendering sized to the screen — or pdf.js's canvas), and drawn by
 * pdf.js; what came over the network from pointing at Open until the sharp page and until pdf.js's;
 * and the INP of the click that opened it. Measured in the page, a frame at a time.
 */
async function openViewer(page: Page, cdp: CDPSession, name: string) {
  await page.evaluate(afterNextPress);
  await page.evaluate(() => {
    type Timings = {
      __vitals: { inp: number };
      __afterPress: (seen: () => boolean) => Promise<{ ms: number; pressedAt: number }>;
      __shown?: Promise<{ ms: number }>;
      __sharp?: Promise<{ ms: number }>;
      __drawn?: Promise<{ ms: number; pressedAt: number }>;
    };
    const w = window as unknown as Timings;
    w.__vitals.inp = 0; // the rename interactions were counted already
    const page1 = {
      drawn() {
        return document.querySelector('canvas[aria-label^="Page 1 of"][aria-busy="false"]') !== null;
      },
      covers() {
        return [...document.querySelectorAll<HTMLImageElement>('img.pdf-cover')].filter(
          (cover) => cover.complete && cover.naturalWidth > 0,
        );
      },
      /** The cover's CSS width in device pixels: what a picture needs to be as sharp as the screen. */
      needed(cover: HTMLImageElement) {
        return Math.floor(cover.getBoundingClientRect().width * window.devicePixelRatio);
      },
      sharp() {
        return page1.covers().some((cover) => cover.naturalWidth >= page1.needed(cover)) || page1.drawn();
      },
    };
    w.__shown = w.__afterPress(() => page1.covers().length > 0 || page1.drawn());
    w.__sharp = w.__afterPress(() => page1.sharp());
    w.__drawn = w.__afterPress(() => page1.drawn());
  });
  const requests = recordRequests(page, cdp);
  // Before the click: pointing at Open already starts loading what the viewer needs.
  const aimedAt = Date.now();
  await page.getByRole('button', { name: `Open ${name}` }).click();
  const seen = page.evaluate(async () => {
    const w = window as unknown as {
      __shown: Promise<{ ms: number }>;
      __sharp: Promise<{ ms: number }>;
      __drawn: Promise<{ ms: number; pressedAt: number }>;
    };
    const [shown, sharp, drawn] = await Promise.all([w.__shown, w.__sharp, w.__drawn]);
    return { shownMs: shown.ms, sharpMs: sharp.ms, drawnMs: drawn.ms, pressedAt: drawn.pressedAt };
  });
  // A page that never draws page 1 ends the run with a reason, rather than holding it for ever.
  const { shownMs, sharpMs, drawnMs, pressedAt } = await Promise.race([
    seen,
    sleep(120_000).then(() => Promise.reject(new Error(`page 1 of ${name} was not drawn within 2 min`))),
  ]);
  const { inp } = await readVitals(page);
  requests.stop();
  const listed = (fetched: Fetched[]) =>
    fetched
      .sort((a, b) => b.bytes - a.bytes)
      .map((f) => `${shortName(f.url)} ${(f.bytes / 1024).toFixed(1)}`);
  const sum = (fetched: Fetched[]) => fetched.reduce((total, f) => total + f.bytes, 0);
  const beforeSharp = await requests.between(aimedAt, pressedAt + sharpMs);
  const beforeDrawn = await requests.between(aimedAt, pressedAt + drawnMs);
  await page.keyboard.press('Escape');
  return {
    shownMs,
    sharpMs,
    drawnMs,
    inp,
    bytesBeforeSharp: sum(beforeSharp),
    bytesBeforeDrawn: sum(beforeDrawn),
    fetchedBeforeSharp: listed(beforeSharp),
    fetchedBeforeDrawn: listed(beforeDrawn),
  };
}

/** Opens the photo `name` and answers the ms from the press on Open until its fitted picture had loaded. */
async function openPhoto(page: Page, name: string) {
  await page.evaluate(afterNextPress);
  const fitted = page.evaluate(
    (alt) =>
      (
        window as unknown as {
          __afterPress: (seen: () => boolean) => Promise<{ ms: number }>;
        }
      ).__afterPress(() => {
        const img = document.querySelector<HTMLImageElement>(`dialog img[alt="${alt}"]`);
        return img !== null && img.complete && img.naturalWidth > 0;
      }),
    name,
  );
  await page.getByRole('button', { name: `Open ${name}` }).click();
  const { ms } = await fitted;
  await page.keyboard.press('Escape');
  return ms;
}

async function readVitals(page: Page): Promise<Vitals & { timeline: string }> {
  // LCP is final once the page has been idle a moment; the observers report asynchronously.
  await page.waitForLoadState('networkidle');
  await sleep(500);
  const vitals = await page.evaluate(() => (window as unknown as { __vitals: Vitals }).__vitals);
  return { ...vitals, timeline: await requestTimeline(page) };
}

export async function benchWebVitals(rounds = 3): Promise<BenchRow[]> {
  buildWebApp();
  const { browser, webUrl, close } = await startWebStack('web', 4950);
  try {
    const phone = {
      viewport: { width: 412, height: 823 },
      deviceScaleFactor: 1.75,
      isMobile: true,
      hasTouch: true,
    };
    /** A context signed in as the issuer (unthrottled: the platform's sign-in pages are not ours). */
    async function signedIn(): Promise<BrowserContext> {
      const context = await browser.newContext(phone);
      const page = await context.newPage();
      await page.goto(webUrl);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('Email').fill('issuer@demo.test');
      await page.getByLabel('Password').fill('demo-password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const allow = page.getByRole('button', { name: 'Allow' });
      await allow.or(page.getByRole('heading', { name: 'Hello, Isaac Issuer' })).waitFor();
      if (await allow.isVisible()) await allow.click();
      await page.getByRole('heading', { name: 'Hello, Isaac Issuer' }).waitFor();
      await page.close();
      return context;
    }

    // The product page shows real files: an image with a crop, a PDF with its thumbnail, a CSV.
    const setup = await signedIn();
    const setupPage = await setup.newPage();
    await setupPage.goto(`${webUrl}/products/1`);
    const photo = await sharp({
      create: {
        width: 2400,
        height: 1600,
        channels: 3,
        background: '#3a6ea5',
        noise: { type: 'gaussian', mean: 128, sigma: 30 },
      },
    })
      .jpeg({ quality: 85 })
      .toBuffer();
    await setupPage
      .getByTestId('input-cover_image')
      .setInputFiles({ name: 'site.jpg', mimeType: 'image/jpeg', buffer: photo });
    await setupPage.getByRole('button', { name: 'Crop and upload' }).click();
    await setupPage
      .getByTestId('input-pitch_deck')
      .setInputFiles({ name: 'deck.pdf', mimeType: 'application/pdf', buffer: deckPdf(12) });
    await setupPage.getByTestId('input-business_plan').setInputFiles({
      name: 'plan.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from('year,revenue\n2025,1000\n'),
    });
    // The deck's thumbnail is drawn at the lowest priority: on a busy machine that takes a while.
    const made = { timeout: 120_000 };
    await setupPage.getByRole('img', { name: 'Preview of deck.pdf' }).waitFor(made);
    await setupPage.getByRole('img', { name: 'Preview of site.jpg' }).waitFor(made);
    await setupPage.getByRole('button', { name: 'Open plan.csv' }).waitFor(made);
    await setup.close();

    const results: Record<'landing' | 'home' | 'entity', (Vitals & { timeline: string })[]> = {
      landing: [],
      home: [],
      entity: [],
    };
    const viewer: Awaited<ReturnType<typeof openViewer>>[] = [];
    const photoMs: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const signedOut = await browser.newContext(phone);
      const landing = await signedOut.newPage();
      await landing.addInitScript(observeVitals);
      await throttle(landing);
      await landing.goto(webUrl);
      await landing.getByRole('button', { name: 'Sign in' }).waitFor();
      results.landing.push(await readVitals(landing));
      await signedOut.close();

      const context = await signedIn();
      const home = await context.newPage();
      await home.addInitScript(observeVitals);
      const homeCdp = await throttle(home);
      await profiled(home, homeCdp, `home-${i + 1}`, async () => {
        await home.goto(webUrl);
        await home.getByRole('heading', { name: 'Hello, Isaac Issuer' }).waitFor();
      });
      results.home.push(await readVitals(home));
      await home.close();

      const entity = await context.newPage();
      await entity.addInitScript(observeVitals);
      const entityCdp = await throttle(entity);
      await profiled(entity, entityCdp, `entity-${i + 1}`, async () => {
        await entity.goto(`${webUrl}/products/1`);
        await entity.getByRole('img', { name: 'Preview of deck.pdf' }).waitFor();
      });
      await entity.getByRole('button', { name: 'Rename plan.csv' }).click();
      await entity.getByRole('button', { name: 'Cancel' }).click();
      await entity.getByRole('button', { name: 'Rename site.jpg' }).click();
      await entity.keyboard.press('Escape');
      // A rename committed (Enter): the list shows the new name at once, before the platform answers;
      // then back, once the platform has the first (the second carries the new version, If-Match).
      for (const [from, to] of [
        ['plan.csv', 'plan 2025.csv'],
        ['plan 2025.csv', 'plan.csv'],
      ] as const) {
        await entity.getByRole('button', { name: `Rename ${from}` }).click();
        await entity.getByLabel(`New name for ${from}`).fill(to);
        const saved = entity.waitForResponse((response) => response.request().method() === 'PUT');
        await entity.keyboard.press('Enter');
        await entity.getByRole('button', { name: `Rename ${to}` }).waitFor();
        expect((await saved).ok()).toBe(true);
      }
      results.entity.push(await readVitals(entity));
      viewer.push(
        await profiled(entity, entityCdp, `viewer-${i + 1}`, () => openViewer(entity, entityCdp, 'deck.pdf')),
      );
      photoMs.push(await openPhoto(entity, 'site.jpg'));
      await context.close();
    }

    const rows: BenchRow[] = [];
    console.log('\nweb vitals medians (phone, 4× CPU, 150 ms RTT, 1.6 Mb/s):');
    for (const [page, samples] of Object.entries(results)) {
      const lcp = median(samples.map((s) => s.lcp));
      const cls = median(samples.map((s) => s.cls));
      const inp = median(samples.map((s) => s.inp));
      console.log(`  ${page}: LCP ${lcp.toFixed(0)} ms, CLS ${cls.toFixed(3)}, INP ${inp.toFixed(0)} ms`);
      // The load whose LCP is the median: what its largest paint was, what moved, where the time went.
      const typical = samples.find((s) => s.lcp === lcp)!;
      console.log(`    largest paint: ${typical.lcpElement}`);
      if (typical.shifted.length > 0) console.log(`    shifted: ${typical.shifted.join('; ')}`);
      console.log(`    timeline (ms): ${typical.timeline}`);
      if (typical.interactions.length > 0)
        console.log(`    interactions (ms): ${typical.interactions.join(', ')}`);
      rows.push({ id: 'W4', measure: `${page}: LCP ÷ 2.5 s`, ratio: lcp / good.lcp, target: '≤ 0.6' });
      rows.push({ id: 'W4', measure: `${page}: CLS ÷ 0.1`, ratio: cls / good.cls, target: '≤ 0.8' });
      if (page === 'entity')
        rows.push({
          id: 'W4',
          measure: `${page}: INP (rename) ÷ 200 ms`,
          ratio: inp / good.inp,
          target: '≤ 0.8',
        });
    }
    const shown = median(viewer.map((s) => s.shownMs));
    const sharpMs = median(viewer.map((s) => s.sharpMs));
    const drawn = median(viewer.map((s) => s.drawnMs));
    const viewerInp = median(viewer.map((s) => s.inp));
    console.log(
      `  viewer: page 1 of the deck on screen ${shown.toFixed(0)} ms after the click (its thumbnail), ` +
        `sharp ${sharpMs.toFixed(0)} ms, drawn by pdf.js ${drawn.toFixed(0)} ms after it, INP ${viewerInp.toFixed(0)} ms`,
    );
    rows.push({
      id: 'W4',
      measure: 'viewer: page 1 on screen ÷ 2.5 s',
      ratio: shown / good.lcp,
      beside: `drawn by pdf.js ${(drawn / good.lcp).toFixed(2)}`,
      target: '≤ 0.8',
    });
    const bytesBeforeSharp = median(viewer.map((s) => s.bytesBeforeSharp));
    const bytesBeforeDrawn = median(viewer.map((s) => s.bytesBeforeDrawn));
    const photoFitted = median(photoMs);
    // The opens whose page 1 took the median time: what came over the network before it.
    const typicalSharp = viewer.find((s) => s.sharpMs === sharpMs)!;
    const typicalDrawn = viewer.find((s) => s.drawnMs === drawn)!;
    const each = (ms: (s: (typeof viewer)[number]) => number) =>
      viewer.map((s) => ms(s).toFixed(0)).join(' / ');
    console.log(
      `  W4v: page 1 sharp on screen ${sharpMs.toFixed(0)} ms after the press on Open (${each((s) => s.sharpMs)}), ` +
        `${(bytesBeforeSharp / 1024).toFixed(0)} KB over the network before it; ` +
        `drawn by pdf.js ${drawn.toFixed(0)} ms (${each((s) => s.drawnMs)}), ` +
        `${(bytesBeforeDrawn / 1024).toFixed(0)} KB before it; ` +
        `the photo fitted ${photoFitted.toFixed(0)} ms after its press (${photoMs.map((ms) => ms.toFixed(0)).join(' / ')})`,
    );
    console.log(
      `    fetched before page 1 was sharp (KB as sent): ${typicalSharp.fetchedBeforeSharp.join(', ')}`,
    );
    console.log(
      `    fetched before pdf.js drew it (KB as sent): ${typicalDrawn.fetchedBeforeDrawn.join(', ')}`,
    );
    rows.push({
      id: 'W4v',
      measure: 'viewer: press on Open to page 1 of the deck sharp on screen ÷ 2.0 s',
      ratio: sharpMs / 2000,
      beside: `${sharpMs.toFixed(0)} ms`,
      target: '≤ 1',
    });
    rows.push({
      id: 'W4v',
      measure: 'viewer: bytes over the network from pointing at Open until page 1 sharp ÷ 250 KB',
      ratio: bytesBeforeSharp / (250 * 1024),
      beside: `${(bytesBeforeSharp / 1024).toFixed(0)} KB`,
      target: '≤ 1',
    });
    rows.push({
      id: 'W4v',
      measure: 'viewer: press on Open to page 1 drawn by pdf.js ÷ 2.0 s',
      ratio: drawn / 2000,
      beside: `${drawn.toFixed(0)} ms, ${(bytesBeforeDrawn / 1024).toFixed(0)} KB before it`,
      target: 'reported',
    });
    rows.push({
      id: 'W4v',
      measure: 'viewer: press on Open to the photo fitted on screen ÷ 1.5 s',
      ratio: photoFitted / 1500,
      beside: `${photoFitted.toFixed(0)} ms`,
      target: '≤ 1',
    });
    rows.push({
      id: 'W4',
      measure: 'viewer: INP (open) ÷ 200 ms',
      ratio: viewerInp / good.inp,
      target: '≤ 0.8',
    });
    return rows;
  } finally {
    await close();
  }
}

if (process.argv[1]?.endsWith('web-vitals.ts')) {
  printRows(await benchWebVitals());
}
