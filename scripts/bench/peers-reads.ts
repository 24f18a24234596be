/**
 * Peer-4 of `npm run bench:peers`: GET /v2/core/assets/:id, ours against a bare Fastify +
 * better-sqlite3 server reading the same row of the same database file with the same bearer token
 * (scripts/bench/servers.ts bare-read): server CPU per request, 32 keep-alive loops, in six times
 * as many rounds as the other parts, of 1 s each, shared by three processes a side. The per-round
 * ratio of such small requests moves by ±25% on a 2-core machine (the client shares the cores, and
 * how many requests each wake-up of the server finds varies); the median of 30 short rounds moved
 * by 2–6% between runs, that of 5 rounds of 3 s by 15%. One process of the same code also differs
 * from another by up to ±5% for its whole life: S4c's measure names each process's median.
 *   Peer-4   bare ÷ ours (≥ 0.77 is the same as S4c ≤ 1.3)
 *   S4c  ours ÷ bare, the way round (lower is better)
 *   S4c′ ours ÷ the bare read sending the same response headers as ours (the security headers
 *        and `Vary: Origin`), which every answer of ours carries and the bare read's do not
 *   S4m  ours with the request line at `info` and the metrics on (METRICS_PORT), beside ours
 *        without (LOG_LEVEL=warn, no metrics), in the same rounds: the µs per request they add
 *        (issue 29: ≤ 5 µs). Its platforms run on ports 4970 + 2i, their metrics on 4971 + 2i.
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { type Load, load, median, roundRatios, startBenchPlatform, startNode, waitFor } from './common';
import type { PeerRow } from './peers';
import { uploadLogo } from './upload';

const processesPerSide = 3;

interface Pair {
  ours: Awaited<ReturnType<typeof startBenchPlatform>>;
  auth: Record<string, string>;
  assetId: number;
  bare: { url: string; pid: number };
  bareWithHeaders: { url: string; pid: number };
  /** Every header of ours that the bare read does not send. */
  ourHeaders: Record<string, string>;
  /** Ours with the request line and the metrics on, and the asset it reads. */
  observed: Awaited<ReturnType<typeof startBenchPlatform>> & { assetId: number };
}

/** Ours (port 4960 + 3i), the bare read of its database (+1), and the same sending our headers (+2). */
async function startPair(work: string, children: ChildProcess[], i: number): Promise<Pair> {
  const port = 4960 + 3 * i;
  const ours = await startBenchPlatform(work, port, {}, children);
  const auth = { authorization: `Bearer ${ours.token}` };
  // A small logo, as S4 reads.
  const assetId = await uploadLogo(ours.platformUrl, ours.token);
  const database = join(ours.dataDir, 'platform.sqlite');
  const bare = startNode(children, ['scripts/bench/servers.ts', 'bare-read', String(port + 1), database]);
  // The same, sending every header of ours that the bare read does not.
  const ourAnswer = await fetch(`${ours.platformUrl}/v2/core/assets/${assetId}`, { headers: auth });
  const ourHeaders = Object.fromEntries([...ourAnswer.headers].filter(([name]) => !bareNames.has(name)));
  const bareWithHeaders = startNode(
    children,
    ['scripts/bench/servers.ts', 'bare-read', String(port + 2), database],
    {
      BARE_READ_HEADERS: JSON.stringify(ourHeaders),
    },
  );
  const observed = await startBenchPlatform(
    work,
    4970 + 2 * i,
    { LOG_LEVEL: 'info', METRICS_PORT: String(4971 + 2 * i) },
    children,
  );
  return {
    observed: { ...observed, assetId: await uploadLogo(observed.platformUrl, observed.token) },
    ours,
    auth,
    assetId,
    bare: { url: `http://127.0.0.1:${port + 1}`, pid: bare.pid! },
    bareWithHeaders: { url: `http://127.0.0.1:${port + 2}`, pid: bareWithHeaders.pid! },
    ourHeaders,
  };
}

/** The headers both send. */
const bareNames = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'content-type',
  'etag',
  'cache-control',
]);

export async function benchReads(work: string, children: ChildProcess[], rounds: number): Promise<PeerRow[]> {
  // Three processes a side, each of ours beside bare reads of its own: one process of the same code
  // reads up to ±5% off another for its whole life (started alike, measured alike), which one
  // process a side would carry whole into the ratio. The pairs take turns, so the part lasts as
  // long as with one pair.
  const pairs: Pair[] = [];
  for (let i = 0; i < processesPerSide; i++) pairs.push(await startPair(work, children, i));
  await Promise.all(pairs.flatMap((pair) => [waitFor(pair.bare.url), waitFor(pair.bareWithHeaders.url)]));
  const path = (pair: Pair) => `/v2/core/assets/${pair.assetId}`;
  for (const pair of pairs) {
    const [oursBody, bareBody] = await Promise.all(
      [pair.ours.platformUrl, pair.bare.url].map(async (base) =>
        (await fetch(base + path(pair), { headers: pair.auth })).text(),
      ),
    );
    if (oursBody !== bareBody) throw new Error(`the bare read answers otherwise:\n${oursBody}\n${bareBody}`);
  }

  const loadOf = (pair: Pair, url: string, pid: number) =>
    load(url + path(pair), pid, { headers: pair.auth, loops: 32, ms: 1000 });
  const oursLoads: Load[] = [];
  const bareLoads: Load[] = [];
  const bareWithHeadersLoads: Load[] = [];
  const observedLoads: Load[] = [];
  const loadObserved = ({ observed }: Pair) =>
    load(`${observed.platformUrl}/v2/core/assets/${observed.assetId}`, observed.pid, {
      headers: { authorization: `Bearer ${observed.token}` },
      loops: 32,
      ms: 1000,
    });
  // One round of warming up, then six times the other parts' rounds in all, shared by the pairs.
  const roundsPerPair = (6 * rounds) / processesPerSide;
  for (let i = 0; i < roundsPerPair + 1; i++) {
    for (const pair of pairs) {
      const bare = await loadOf(pair, pair.bare.url, pair.bare.pid);
      const ours = await loadOf(pair, pair.ours.platformUrl, pair.ours.pid);
      const bareWithHeaders = await loadOf(pair, pair.bareWithHeaders.url, pair.bareWithHeaders.pid);
      const observed = await loadObserved(pair);
      if (i === 0) continue;
      observedLoads.push(observed);
      bareLoads.push(bare);
      oursLoads.push(ours);
      bareWithHeadersLoads.push(bareWithHeaders);
    }
  }
  const cpu = (loads: Load[]) => median(loads.map((l) => l.cpuMicrosPerRequest)).toFixed(0);
  const rate = (loads: Load[]) => median(loads.map((l) => l.perSecond)).toFixed(0);
  // Round r of pair p is load r * pairs + p.
  const byProcess = (loads: Load[]) =>
    pairs.map((_, p) => cpu(loads.filter((_, index) => index % processesPerSide === p))).join(', ');
  return [
    {
      id: 'Peer-4',
      measure: 'GET asset, server CPU per request (µs): bare ÷ ours',
      ours: cpu(oursLoads),
      peer: `Fastify + better-sqlite3 ${cpu(bareLoads)}`,
      ...roundRatios(oursLoads.map((o, i) => bareLoads[i]!.cpuMicrosPerRequest / o.cpuMicrosPerRequest)),
      target: '≥ 0.77',
    },
    {
      id: 'S4c',
      measure: `GET asset, server CPU per request: ours ÷ bare (lower is better; µs by process: ours ${byProcess(oursLoads)}, bare ${byProcess(bareLoads)})`,
      ours: cpu(oursLoads),
      peer: `Fastify + better-sqlite3 ${cpu(bareLoads)}`,
      ...roundRatios(oursLoads.map((o, i) => o.cpuMicrosPerRequest / bareLoads[i]!.cpuMicrosPerRequest)),
      target: '≤ 1.3',
    },
    {
      id: 'S4c′',
      measure: `GET asset, server CPU per request: ours ÷ the bare read sending our ${Object.keys(pairs[0]!.ourHeaders).length} other headers too`,
      ours: cpu(oursLoads),
      peer: `Fastify + better-sqlite3 + headers ${cpu(bareWithHeadersLoads)}`,
      ...roundRatios(
        oursLoads.map((o, i) => o.cpuMicrosPerRequest / bareWithHeadersLoads[i]!.cpuMicrosPerRequest),
      ),
      target: '≤ 1.3',
    },
    {
      id: 'S4m',
      measure: `GET asset, server CPU per request with the request line at info and the metrics on ÷ without (µs added, median of the rounds' differences: ${median(observedLoads.map((o, i) => o.cpuMicrosPerRequest - oursLoads[i]!.cpuMicrosPerRequest)).toFixed(1)}; by process: with ${byProcess(observedLoads)}, without ${byProcess(oursLoads)})`,
      ours: cpu(observedLoads),
      peer: `ours without ${cpu(oursLoads)}`,
      ...roundRatios(observedLoads.map((o, i) => o.cpuMicrosPerRequest / oursLoads[i]!.cpuMicrosPerRequest)),
      target: '≤ +5 µs',
    },
    {
      id: 'Peer-4',
      measure: 'GET asset, req/s (32 loops; the client shares the 2 cores)',
      ours: rate(oursLoads),
      peer: `Fastify + better-sqlite3 ${rate(bareLoads)}`,
      ...roundRatios(oursLoads.map((o, i) => o.perSecond / bareLoads[i]!.perSecond)),
      target: '—',
    },
  ];
}
