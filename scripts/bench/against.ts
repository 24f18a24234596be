/**
 * `npm run bench:against -- <git ref> [rounds]`: this checkout against another version of the code,
 * both platforms running side by side and measured in turns, round by round (which goes first
 * alternates), so that a busy machine weighs on both alike. Separate runs of `npm run bench` on a
 * shared machine differ by more than most changes do (docs/benchmarks.md, "PDF thumbnails": a
 * render process that seemed not to help in one run each, and did help measured this way).
 *   GET   GET /v2/core/assets/:id from 4 keep-alive loops for 2 s: the platform's CPU per request
 *   S8′   upload of the 12-slide pitch deck until its thumbnail is ready (as the bench's S8′), time and
 *         the platform's CPU, each ÷ bare pdf.js + PNG in this process, measured in the same round
 *   S8″   the same upload from the 201's answer to the thumbnail's row committed ÷ bare pdf.js + PNG +
 *         one durable write (as the bench's S8″), each version's own figure and ours ÷ theirs
 *   RSS   each platform's resident memory at the end
 * The other version runs from a git worktree in a temporary folder, with this checkout's
 * node_modules: a ref whose package-lock.json differs is refused (its dependencies would not be its own).
 */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { deckPdf } from '../../src/platform/testing/pdf-files';
import {
  cpuTicks,
  latencies,
  median,
  printRows,
  roundRatios,
  rssBytes,
  sleep,
  startBenchPlatform,
  stopAll,
  tickMicros,
  type BenchRow,
} from './common';
import { bareRender, createDeck, uploadToReady } from './thumbnails';

const [ref, roundsArg] = process.argv.slice(2);
if (!ref) {
  console.error('usage: npm run bench:against -- <git ref> [rounds]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 20);
if (!Number.isSafeInteger(rounds) || rounds < 1) {
  console.error(`rounds must be a whole number of at least 1, not ${roundsArg}`);
  process.exit(2);
}
const git = (...args: string[]) => execFileSync('git', args, { encoding: 'utf8' }).trim();
const lock = (at: string) => git('show', `${at}:package-lock.json`);
if (lock(ref) !== readFileSync('package-lock.json', 'utf8').trim()) {
  console.error(`${ref} has other dependencies (package-lock.json differs): not comparable this way.`);
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'bench-against-'));
const theirCheckout = join(work, 'checkout');
git('worktree', 'add', '--detach', theirCheckout, ref);
symlinkSync(resolve('node_modules'), join(theirCheckout, 'node_modules'));
const children: ChildProcess[] = [];
try {
  const versions = {
    theirs: await startBenchPlatform(work, 4931, {}, children, theirCheckout),
    ours: await startBenchPlatform(work, 4932, {}, children),
  };
  type Version = keyof typeof versions;
  const deck = deckPdf(12);
  const probes = {
    theirs: (await createDeck(versions.theirs.platformUrl, versions.theirs.token, deck)).id,
    ours: (await createDeck(versions.ours.platformUrl, versions.ours.token, deck)).id,
  };

  const getCpuUs = async (version: Version) => {
    const { platformUrl, token, pid } = versions[version];
    const ticks = cpuTicks(pid);
    const answered = await latencies(`${platformUrl}/v2/core/assets/${probes[version]}`, {
      headers: { authorization: `Bearer ${token}` },
      ms: 2000,
      loops: 4,
    });
    return ((cpuTicks(pid) - ticks) * tickMicros) / answered.length;
  };

  /** Which goes first alternates round by round. */
  const order = (round: number): Version[] => (round % 2 === 0 ? ['theirs', 'ours'] : ['ours', 'theirs']);
  const get: Record<Version, number[]> = { theirs: [], ours: [] };
  const ready: Record<Version, number[]> = { theirs: [], ours: [] };
  const afterAnswer: Record<Version, number[]> = { theirs: [], ours: [] };
  // S8″'s baseline writes its PNG durably on the same file system as the platforms' stores.
  const bareStore = join(work, 'bare-store');
  mkdirSync(bareStore);
  // Summed over the rounds: the platform's CPU is read in clock ticks of 10 ms, a tenth of a thumbnail.
  const readyCpu: Record<Version, { platformMs: number; bareMs: number }> = {
    theirs: { platformMs: 0, bareMs: 0 },
    ours: { platformMs: 0, bareMs: 0 },
  };
  // The first two rounds warm both up (JIT, pdf.js and its fonts, the workers) and do not count.
  // Thumbnails first, then the reads, so that no read load runs just before an upload being timed.
  for (let i = 0; i < rounds + 2; i++) {
    for (const version of order(i)) {
      const bare = await bareRender(deck, bareStore);
      const made = await uploadToReady(versions[version], deck);
      if (i < 2) continue;
      ready[version].push(made.ms / bare.ms);
      afterAnswer[version].push(made.afterAnswerMs / bare.ms);
      readyCpu[version].platformMs += made.cpuMs;
      readyCpu[version].bareMs += bare.cpuMs;
    }
  }
  for (let i = 0; i < rounds + 1; i++) {
    for (const version of order(i)) {
      const cpuUs = await getCpuUs(version);
      if (i > 0) get[version].push(cpuUs);
    }
  }
  const cpuRatio = (version: Version) => readyCpu[version].platformMs / readyCpu[version].bareMs;
  const rss = { theirs: rssBytes(versions.theirs.pid), ours: rssBytes(versions.ours.pid) };

  const row = (id: string, measure: string, by: Record<Version, number[]>, digits = 2): BenchRow => ({
    id,
    measure: `${measure}: ours ${median(by.ours).toFixed(digits)}, theirs ${median(by.theirs).toFixed(digits)}`,
    ...roundRatios(by.ours.map((value, i) => value / by.theirs[i]!)),
    target: 'ours ÷ theirs; below 1 is better',
  });
  console.log(`\nthis checkout (ours) against ${ref} (theirs), ${rounds} rounds:`);
  printRows([
    row('GET', 'GET asset, µs of the platform CPU per request', get, 0),
    row('S8′', 'upload to thumbnail ready ÷ bare render + PNG + durable write, by time', ready),
    row(
      'S8″',
      "201's answer to the thumbnail's row committed ÷ bare render + PNG + durable write",
      afterAnswer,
    ),
    {
      id: 'S8′',
      measure: `the same by the platform's CPU ÷ the bare render's, summed: ours ${cpuRatio('ours').toFixed(2)}, theirs ${cpuRatio('theirs').toFixed(2)}`,
      ratio: cpuRatio('ours') / cpuRatio('theirs'),
      target: 'ours ÷ theirs; below 1 is better',
    },
    {
      id: 'RSS',
      measure: `resident memory at the end: ours ${(rss.ours / 2 ** 20).toFixed(0)} MB, theirs ${(rss.theirs / 2 ** 20).toFixed(0)} MB`,
      ratio: rss.ours / rss.theirs,
      target: 'ours ÷ theirs; below 1 is better',
    },
  ]);
} finally {
  await stopAll(children);
  await sleep(200);
  git('worktree', 'remove', '--force', theirCheckout);
  rmSync(work, { recursive: true, force: true });
}
