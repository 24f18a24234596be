/**
 * P4 of `npm run bench:peers`: GET /v2/core/assets/:id, ours against a bare Fastify +
 * better-sqlite3 server reading the same row of the same database file with the same bearer token
 * (scripts/bench/servers.ts bare-read): server CPU per request, 32 keep-alive loops, in six times
 * as many rounds as the other parts, of 1 s each. The per-round ratio of such small requests moves
 * by ±25% on a 2-core machine (the client shares the cores, and how many requests each wake-up of
 * the server finds varies); the median of 30 short rounds moved by 2–6% between runs, that of 5
 * rounds of 3 s by 15%.
 *   P4   bare ÷ ours (≥ 0.77 is the same as S4c ≤ 1.3)
 *   S4c  ours ÷ bare, the way round (lower is better)
 *   S4c′ ours ÷ the bare read sending the same response headers as ours (the security headers
 *        and `Vary: Origin`), which every answer of ours carries and the bare read's do not
 */
import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { type Load, load, median, roundRatios, startBenchPlatform, startNode, waitFor } from './common';
import type { PeerRow } from './peers';
import { uploadLogo } from './upload';

export async function benchReads(work: string, children: ChildProcess[], rounds: number): Promise<PeerRow[]> {
  const ours = await startBenchPlatform(work, 4960, {}, children);
  const auth = { authorization: `Bearer ${ours.token}` };
  // A small logo, as S4 reads.
  const assetId = await uploadLogo(ours.platformUrl, ours.token);

  const database = join(ours.dataDir, 'platform.sqlite');
  const bare = startNode(children, ['scripts/bench/servers.ts', 'bare-read', '4961', database]);
  // The same, sending every header of ours that the bare read does not.
  const ourAnswer = await fetch(`${ours.platformUrl}/v2/core/assets/${assetId}`, { headers: auth });
  const bareNames = new Set([
    'date',
    'connection',
    'keep-alive',
    'content-length',
    'content-type',
    'etag',
    'cache-control',
  ]);
  const ourHeaders = Object.fromEntries([...ourAnswer.headers].filter(([name]) => !bareNames.has(name)));
  const bareWithHeaders = startNode(children, ['scripts/bench/servers.ts', 'bare-read', '4962', database], {
    BARE_READ_HEADERS: JSON.stringify(ourHeaders),
  });
  await Promise.all([waitFor('http://127.0.0.1:4961/'), waitFor('http://127.0.0.1:4962/')]);
  const path = `/v2/core/assets/${assetId}`;
  const [oursBody, bareBody] = await Promise.all(
    [ours.platformUrl, 'http://127.0.0.1:4961'].map(async (base) =>
      (await fetch(base + path, { headers: auth })).text(),
    ),
  );
  if (oursBody !== bareBody) throw new Error(`the bare read answers otherwise:\n${oursBody}\n${bareBody}`);

  const options = { headers: auth, loops: 32, ms: 1000 };
  const oursLoad = () => load(ours.platformUrl + path, ours.pid, options);
  const bareLoad = () => load(`http://127.0.0.1:4961${path}`, bare.pid!, options);
  const bareWithHeadersLoad = () => load(`http://127.0.0.1:4962${path}`, bareWithHeaders.pid!, options);
  await oursLoad();
  await bareLoad();
  await bareWithHeadersLoad();
  const oursLoads: Load[] = [];
  const bareLoads: Load[] = [];
  const bareWithHeadersLoads: Load[] = [];
  for (let i = 0; i < 6 * rounds; i++) {
    bareLoads.push(await bareLoad());
    oursLoads.push(await oursLoad());
    bareWithHeadersLoads.push(await bareWithHeadersLoad());
  }
  const cpu = (loads: Load[]) => median(loads.map((l) => l.cpuMicrosPerRequest)).toFixed(0);
  const rate = (loads: Load[]) => median(loads.map((l) => l.perSecond)).toFixed(0);
  return [
    {
      id: 'P4',
      measure: 'GET asset, server CPU per request (µs): bare ÷ ours',
      ours: cpu(oursLoads),
      peer: `Fastify + better-sqlite3 ${cpu(bareLoads)}`,
      ...roundRatios(oursLoads.map((o, i) => bareLoads[i]!.cpuMicrosPerRequest / o.cpuMicrosPerRequest)),
      target: '≥ 0.77',
    },
    {
      id: 'S4c',
      measure: 'GET asset, server CPU per request: ours ÷ bare (lower is better)',
      ours: cpu(oursLoads),
      peer: `Fastify + better-sqlite3 ${cpu(bareLoads)}`,
      ...roundRatios(oursLoads.map((o, i) => o.cpuMicrosPerRequest / bareLoads[i]!.cpuMicrosPerRequest)),
      target: '≤ 1.3',
    },
    {
      id: 'S4c′',
      measure: `GET asset, server CPU per request: ours ÷ the bare read sending our ${Object.keys(ourHeaders).length} other headers too`,
      ours: cpu(oursLoads),
      peer: `Fastify + better-sqlite3 + headers ${cpu(bareWithHeadersLoads)}`,
      ...roundRatios(
        oursLoads.map((o, i) => o.cpuMicrosPerRequest / bareWithHeadersLoads[i]!.cpuMicrosPerRequest),
      ),
      target: '≤ 1.3',
    },
    {
      id: 'P4',
      measure: 'GET asset, req/s (32 loops; the client shares the 2 cores)',
      ours: rate(oursLoads),
      peer: `Fastify + better-sqlite3 ${rate(bareLoads)}`,
      ...roundRatios(oursLoads.map((o, i) => o.perSecond / bareLoads[i]!.perSecond)),
      target: '—',
    },
  ];
}
