/**
 * `npm run bench:peers`: our platform beside the projects people would otherwise pick for each job,
 * in interleaved rounds (A B A B ...), medians, with the spread of the per-round ratios. The peers
 * are installed on demand into scripts/bench/peers (its own package.json, not part of `npm ci`).
 *   Peer-1 sign-in and refresh grant ÷ panva's oidc-provider at the same durability (peers-sign-in.ts)
 *   Peer-2 1 MB and 50 MB uploads ÷ @tus/server + @tus/file-store, ÷ Fastify + @fastify/multipart
 *      writing to disk with fsync (peers-uploads.ts)
 *   Peer-3 first and repeated crop + 800 px WebP of a 12-megapixel JPEG ÷ ipx (peers-renditions.ts)
 *   Peer-4 GET /v2/core/assets/:id server CPU per request: a bare Fastify + better-sqlite3 read of the
 *      same row ÷ ours; and S4c, its inverse (peers-reads.ts)
 * Every ratio reads "higher is better for us": ≥ 1 means ours is ahead or equal.
 * BENCH_ONLY=Peer-1|Peer-2|Peer-3|Peer-4 runs one part; BENCH_ROUNDS (default 5) sets the rounds.
 * Ports 4930–4975, apart from `npm run bench`'s (4900–4921, 4950–4951), so that the two may run at
 * once.
 */
import { type ChildProcess, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sleep } from './common';
import { benchSignIn } from './peers-sign-in';
import { benchUploads } from './peers-uploads';
import { benchRenditions } from './peers-renditions';
import { benchReads } from './peers-reads';

export interface PeerRow {
  id: string;
  measure: string;
  ours: string;
  peer: string;
  /** The per-round ratios' median, higher is better for us. */
  ratio: number;
  spread: readonly [number, number];
  target: string;
}

/** Installs the peers' packages (quick when they are already there). */
function installPeers() {
  const installed = spawnSync(
    'npm',
    ['install', '--prefix', 'scripts/bench/peers', '--no-audit', '--no-fund'],
    {
      stdio: 'inherit',
    },
  );
  if (installed.status !== 0) throw new Error('npm install --prefix scripts/bench/peers failed');
}

const parts: Record<string, (work: string, children: ChildProcess[], rounds: number) => Promise<PeerRow[]>> =
  {
    'Peer-1': benchSignIn,
    'Peer-2': benchUploads,
    'Peer-3': benchRenditions,
    'Peer-4': benchReads,
  };

installPeers();
const rounds = Number(process.env.BENCH_ROUNDS ?? 5);
const only = process.env.BENCH_ONLY;
const rows: PeerRow[] = [];
for (const [id, part] of Object.entries(parts)) {
  if (only && only !== id) continue;
  const work = mkdtempSync(join(tmpdir(), `bench-peers-${id}-`));
  const children: ChildProcess[] = [];
  try {
    rows.push(...(await part(work, children, rounds)));
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await sleep(300);
    rmSync(work, { recursive: true, force: true });
  }
}

console.log(`\nbench:peers: ${rounds} interleaved rounds, medians; ratio ≥ 1 means ours is ahead or equal\n`);
console.log('| id | measure | ours | peer | ratio | spread | target |\n|---|---|---|---|---|---|---|');
for (const row of rows)
  console.log(
    `| ${row.id} | ${row.measure} | ${row.ours} | ${row.peer} | ${row.ratio.toFixed(2)} | ${row.spread[0].toFixed(2)}–${row.spread[1].toFixed(2)} | ${row.target} |`,
  );
