/**
 * `npm run bench`: performance ratios of docs/performance.md, each against a baseline
 * measured in the same run, interleaved (A B A B ...), median of 5 rounds. Not part of `npm test`.
 *   S1 upload MB/s of POST /v2/core/assets ÷ a bare node:http server piping to disk (200 MB)
 *   S2 (peak RSS − idle RSS) during one 200 MB upload ÷ upload size
 *   S3 server CPU time per upload ÷ the bare pipe's
 *   S4 GET /v2/core/assets/:id ÷ Fastify hello world
 *   S5 GET /v2/core/assets/:id/download_url ÷ hello world
 *   (S4 and S5 are steered by server CPU per request, hello world's ÷ ours; req/s beside it)
 *   Peer-1–Peer-4 and S4c, against other projects' servers: scripts/bench/peers.ts (npm run bench:peers)
 *   S6, S7 file delivery and image renditions: scripts/bench/renditions.ts (BENCH_ONLY=renditions)
 *   S8′, S9, S1p, S2p, S3p PDF thumbnails: scripts/bench/thumbnails.ts (BENCH_ONLY=thumbnails)
 *   W4 the web app's LCP, CLS and INP on a throttled phone: scripts/bench/web-vitals.ts (BENCH_ONLY=web)
 *   W5 the browser's photo check of a 12 MP photo on a throttled phone, W5h of a 100 MP one:
 *      scripts/bench/photo-check.ts (BENCH_ONLY=photo, with S12 and S13)
 *   S12 the platform's photo check, CPU ms per megapixel at 3, 12, 48 and 100 MP; S13 the platform's
 *      CPU for a licence photo's upload (checked) ÷ the same bytes as an avatar (not checked):
 *      scripts/bench/photo-platform.ts (BENCH_ONLY=photo)
 *   S4m′ what the request line and the metrics add to a GET, in instructions under valgrind:
 *        scripts/bench/request-line-cost.ts (BENCH_ONLY=request-line); S4mi the same timed in
 *        process, as a cross-check: scripts/bench/request-line-in-process.ts
 *   S11 an entity read with 100, 10 000 and 100 000 assets: scripts/bench/paging.ts (BENCH_ONLY=paging)
 *   R1–R3 resumable (tus) uploads: resumed bytes, MB/s beside POST, RSS of 8 at once:
 *       scripts/bench/resumable.ts (BENCH_ONLY=resumable)
 * With BENCH_BACKEND=postgres, the same run adds the scale-out backends (issue 15), each on a
 * PostgreSQL database, an s3rver bucket and Redis keys of its own, removed after:
 *   S1s–S5s S1–S5 on PostgreSQL + S3 + Redis beside SQLite + files: scripts/bench/scaled.ts
 *           (BENCH_ONLY=backends)
 *   S10     GET through nginx, two instances ÷ one: scripts/bench/nginx.ts (BENCH_ONLY=nginx)
 *   S11pg   S11 on PostgreSQL (BENCH_ONLY=paging with BENCH_BACKEND=postgres: S11 and S11pg)
 *   BENCH_ONLY=scaled runs these three alone.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cpuRow, issuerToken, type Load, load, median, printRows, roundRatios, waitFor } from './common';
import { benchNginx } from './nginx';
import { benchPaging } from './paging';
import { benchPhotoCheck } from './photo-check';
import { benchPhotoPlatform } from './photo-platform';
import { benchRenditions } from './renditions';
import { benchRequestLineCost } from './request-line-cost';
import { benchRequestLineInProcess } from './request-line-in-process';
import { benchResumable } from './resumable';
import { benchScaled } from './scaled';
import { benchThumbnails } from './thumbnails';
import { type UploadResult, upload, uploadLogo, writeUploadFile } from './upload';
import { benchWebVitals } from './web-vitals';

// R1–R3 bring their own platform; BENCH_ONLY=resumable runs only them.
if (process.env.BENCH_ONLY === 'resumable') {
  printRows(await benchResumable());
  process.exit(0);
}
// S6–S7 bring their own servers; BENCH_ONLY=renditions runs only them.
if (process.env.BENCH_ONLY === 'renditions') {
  printRows(await benchRenditions());
  process.exit(0);
}
// S8–S9 likewise: BENCH_ONLY=thumbnails; and W4: BENCH_ONLY=web.
if (process.env.BENCH_ONLY === 'thumbnails') {
  printRows(await benchThumbnails());
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'request-line') {
  printRows([...(await benchRequestLineInProcess()), ...(await benchRequestLineCost())]);
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'web') {
  printRows(await benchWebVitals());
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'photo') {
  printRows([...(await benchPhotoPlatform()), ...(await benchPhotoCheck())]);
  process.exit(0);
}
if (process.env.BENCH_BACKEND !== undefined && process.env.BENCH_BACKEND !== 'postgres') {
  console.error('BENCH_BACKEND is postgres (the scale-out backends beside the embedded ones) or unset.');
  process.exit(1);
}
const scaleOut = process.env.BENCH_BACKEND === 'postgres';
/** The scale-out parts: S1s–S5s, S10, S11pg. */
async function benchScaleOut() {
  printRows(await benchScaled());
  printRows(await benchNginx());
  printRows(await benchPaging(5, 'scaled'));
}
if (process.env.BENCH_ONLY === 'scaled') {
  await benchScaleOut();
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'backends') {
  printRows(await benchScaled());
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'nginx') {
  printRows(await benchNginx());
  process.exit(0);
}
if (process.env.BENCH_ONLY === 'paging') {
  printRows(await benchPaging());
  if (scaleOut) printRows(await benchPaging(5, 'scaled'));
  process.exit(0);
}

const rounds = 5;
const uploadBytes = 200 * 1024 * 1024;
const work = mkdtempSync(join(tmpdir(), 'bench-'));
const children: ChildProcess[] = [];

function start(args: string[], env: Record<string, string> = {}) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}
// The platform, with real storage in a fresh data directory and rate limits out of the way.
const platformPort = 4900;
const platformUrl = `http://127.0.0.1:${platformPort}`;
const dataDir = join(work, 'data');
const platform = start(['src/platform/main.ts'], {
  DATA_DIR: dataDir,
  ...(process.env.BENCH_LOG_LEVEL ? { LOG_LEVEL: process.env.BENCH_LOG_LEVEL } : {}),
  DEMO_SEED: '1',
  PLATFORM_PORT: String(platformPort),
  MAX_UPLOAD_BYTES: String(uploadBytes + 1024),
  API_RATE_LIMIT: '100000000',
  TOKEN_RATE_LIMIT: '100000',
});
const pipe = start(['scripts/bench/servers.ts', 'pipe', '4901', work]);
const hello = start(['scripts/bench/servers.ts', 'hello', '4902', work]);
await Promise.all([
  waitFor(`${platformUrl}/healthz`),
  waitFor('http://127.0.0.1:4901/'),
  waitFor('http://127.0.0.1:4902/'),
]);

// A token through the real sign-in flow, with the shell script people use.
const token = await issuerToken(platformUrl, dataDir);

// The file: a PDF header, then random bytes (sniffed as PDF, accepted as a financial document).
const file = process.env.BENCH_ONLY !== 'requests' ? writeUploadFile(work, uploadBytes) : '';

try {
  const ours: UploadResult[] = [];
  const bare: UploadResult[] = [];
  // BENCH_ONLY=requests skips the uploads (S1–S3) when working on request throughput.
  for (let i = 0; i < (process.env.BENCH_ONLY === 'requests' ? 0 : rounds); i++) {
    bare.push(await upload('http://127.0.0.1:4901/', pipe.pid!, { file, multipart: false }));
    ours.push(await upload(`${platformUrl}/v2/core/assets`, platform.pid!, { file, token, multipart: true }));
  }
  const mbps = (r: { seconds: number }) => uploadBytes / 1024 / 1024 / r.seconds;

  // An asset to read: a small logo.
  const logoId = await uploadLogo(platformUrl, token);
  const auth = { authorization: `Bearer ${token}` };

  const helloForGet: Load[] = [];
  const helloForUrl: Load[] = [];
  const gets: Load[] = [];
  const urls: Load[] = [];
  const helloLoad = () => load('http://127.0.0.1:4902/', hello.pid!, { loops: 32 });
  for (let i = 0; i < rounds; i++) {
    helloForGet.push(await helloLoad());
    gets.push(
      await load(`${platformUrl}/v2/core/assets/${logoId}`, platform.pid!, {
        headers: auth,
        loops: 32,
      }),
    );
    helloForUrl.push(await helloLoad());
    urls.push(
      await load(`${platformUrl}/v2/core/assets/${logoId}/download_url`, platform.pid!, {
        headers: auth,
        loops: 32,
      }),
    );
  }

  const perRound = (f: (o: (typeof ours)[number], b: (typeof bare)[number]) => number) =>
    ours.length ? roundRatios(ours.map((o, i) => f(o, bare[i]!))) : { ratio: NaN };
  printRows([
    {
      id: 'S1',
      measure: `upload MB/s ÷ bare pipe (${median(ours.map(mbps)).toFixed(0)} vs ${median(bare.map(mbps)).toFixed(0)})`,
      ...perRound((o, b) => mbps(o) / mbps(b)),
      target: '≥ 0.75',
    },
    {
      id: 'S2',
      measure: `(peak − idle RSS) ÷ upload size (${(median(ours.map((r) => r.rssGrowth)) / 2 ** 20).toFixed(1)} MB)`,
      ...perRound((o) => o.rssGrowth / uploadBytes),
      target: '≤ 0.25',
    },
    {
      id: 'S3',
      measure: 'CPU per upload ÷ bare pipe',
      ...perRound((o, b) => o.ticks / Math.max(1, b.ticks)),
      target: '≤ 1.4',
    },
    cpuRow('S4', 'GET asset ÷ hello world', gets, helloForGet, '≥ 0.55'),
    cpuRow('S5', 'download_url ÷ hello world', urls, helloForUrl, '≥ 0.45'),
  ]);
  console.log(`(${rounds} interleaved rounds, medians; ${uploadBytes / 1024 / 1024} MB uploads)`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
if (!process.env.BENCH_ONLY) printRows(await benchRenditions());
if (!process.env.BENCH_ONLY) printRows(await benchThumbnails());
if (!process.env.BENCH_ONLY) printRows(await benchWebVitals());
if (!process.env.BENCH_ONLY) printRows([...(await benchPhotoPlatform()), ...(await benchPhotoCheck())]);
if (!process.env.BENCH_ONLY) printRows(await benchPaging());
if (!process.env.BENCH_ONLY) printRows(await benchResumable());
if (!process.env.BENCH_ONLY)
  printRows([...(await benchRequestLineInProcess()), ...(await benchRequestLineCost())]);
if (!process.env.BENCH_ONLY && scaleOut) await benchScaleOut();
