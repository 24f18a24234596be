/**
 * S1, S2, S3, S4 and S5 on the scale-out backends beside the embedded ones (issue 15's benchmarks):
 * two platforms at once, one on SQLite + files in its data directory, one on PostgreSQL + an S3
 * bucket (s3rver) + Redis, loaded in interleaved rounds (embedded, scaled, embedded, …; medians of 5).
 * `BENCH_ONLY=scaled`, or with `BENCH_BACKEND=postgres npm run bench`.
 *   S1s  200 MB upload MB/s, scaled ÷ embedded
 *   S2s  the scaled platform's peak RSS growth during it ÷ upload size (S2's target)
 *   S3s  the platform's CPU per upload, scaled ÷ embedded (beside: with s3rver, PostgreSQL and Redis)
 *   S4s  GET asset, S5s download_url: embedded's CPU per request ÷ scaled's (so that it reads like
 *        req/s scaled ÷ embedded, higher is better); req/s beside, and the engines' CPU per request
 * The scaled platform's own CPU is what an instance costs; the engines' is what the database, bucket
 * and shared state cost on top, which SQLite and the disk spend inside the embedded platform's
 * process. Redis is the machine's, shared with whatever else uses it.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type BenchRow,
  cpuRow,
  type Load,
  load,
  median,
  roundRatios,
  startBenchPlatform,
  stopAll,
  tickMicros,
} from './common';
import { type Engines, startEngines } from './engines';
import { type UploadResult, upload, uploadLogo, writeUploadFile } from './upload';

const uploadBytes = 200 * 1024 * 1024;
const embeddedPort = 5600;
const scaledPort = 5601;
const phaseMs = 3000;

type EngineTicks = ReturnType<Engines['ticks']>;
const engineSum = (t: EngineTicks) => t.postgres + t.s3rver + t.redis;

/** Runs `work` and answers what it answered with the engines' CPU ticks meanwhile. */
async function withEngines<T>(engines: Engines, work: () => Promise<T>) {
  const before = engines.ticks();
  const result = await work();
  const after = engines.ticks();
  return {
    result,
    engines: {
      postgres: after.postgres - before.postgres,
      s3rver: after.s3rver - before.s3rver,
      redis: after.redis - before.redis,
    },
  };
}

const mbps = (r: UploadResult) => uploadBytes / 1024 / 1024 / r.seconds;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

export async function benchScaled(rounds = 5): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'bench-scaled-'));
  const children: ChildProcess[] = [];
  let engines: Engines | undefined;
  try {
    engines = await startEngines(work, children);
    const limits = { MAX_UPLOAD_BYTES: String(uploadBytes + 1024) };
    const embedded = await startBenchPlatform(work, embeddedPort, limits, children);
    const scaled = await startBenchPlatform(work, scaledPort, { ...engines.env, ...limits }, children);
    const file = writeUploadFile(work, uploadBytes);

    const embeddedUploads: UploadResult[] = [];
    const scaledUploads: { result: UploadResult; engines: EngineTicks }[] = [];
    for (let i = 0; i < rounds; i++) {
      const to = (p: typeof embedded) =>
        upload(`${p.platformUrl}/v2/core/assets`, p.pid, { file, token: p.token, multipart: true });
      embeddedUploads.push(await to(embedded));
      scaledUploads.push(await withEngines(engines, () => to(scaled)));
    }

    const ids = {
      embedded: await uploadLogo(embedded.platformUrl, embedded.token),
      scaled: await uploadLogo(scaled.platformUrl, scaled.token),
    };
    const loadOf = (p: typeof embedded, path: string) =>
      load(`${p.platformUrl}${path}`, p.pid, {
        headers: { authorization: `Bearer ${p.token}` },
        loops: 32,
        ms: phaseMs,
      });
    const phases = {
      get: { embedded: [] as Load[], scaled: [] as { result: Load; engines: EngineTicks }[] },
      url: { embedded: [] as Load[], scaled: [] as { result: Load; engines: EngineTicks }[] },
    };
    const paths = (id: number) => ({
      get: `/v2/core/assets/${id}`,
      url: `/v2/core/assets/${id}/download_url`,
    });
    for (const kind of ['get', 'url'] as const) {
      // Warm-up: both platforms' JIT on the route.
      await loadOf(embedded, paths(ids.embedded)[kind]);
      await loadOf(scaled, paths(ids.scaled)[kind]);
    }
    for (let i = 0; i < rounds; i++)
      for (const kind of ['get', 'url'] as const) {
        phases[kind].embedded.push(await loadOf(embedded, paths(ids.embedded)[kind]));
        phases[kind].scaled.push(await withEngines(engines, () => loadOf(scaled, paths(ids.scaled)[kind])));
      }

    /** The engines' CPU µs per request of a phase (one engine's, or all three's). */
    const engineMicros = (phase: { result: Load; engines: EngineTicks }, name?: keyof EngineTicks) =>
      ((name ? phase.engines[name] : engineSum(phase.engines)) * tickMicros) /
      ((phase.result.perSecond * phaseMs) / 1000);
    const requestRow = (id: string, measure: string, kind: 'get' | 'url') => {
      const scaledLoads = phases[kind].scaled;
      const row = cpuRow(
        id,
        measure,
        scaledLoads.map((p) => p.result),
        phases[kind].embedded,
        '—',
      );
      const part = (name?: keyof EngineTicks) =>
        median(scaledLoads.map((p) => engineMicros(p, name))).toFixed(0);
      return {
        ...row,
        beside: `${row.beside}; engines +${part()} µs (PostgreSQL ${part('postgres')}, Redis ${part('redis')}, s3rver ${part('s3rver')})`,
      };
    };
    const ms = (ticks: number) => (ticks * tickMicros) / 1000;
    const withEnginesMs = (u: (typeof scaledUploads)[number]) => ms(u.result.ticks + engineSum(u.engines));
    return [
      {
        id: 'S1s',
        measure: `200 MB upload MB/s, scaled ÷ embedded (${median(scaledUploads.map((u) => mbps(u.result))).toFixed(0)} vs ${median(embeddedUploads.map(mbps)).toFixed(0)})`,
        ...roundRatios(scaledUploads.map((u, i) => mbps(u.result) / mbps(embeddedUploads[i]!))),
        target: '—',
      },
      {
        id: 'S2s',
        measure: `scaled: peak RSS growth ÷ upload size (${mb(median(scaledUploads.map((u) => u.result.rssGrowth)))} MB; embedded ${mb(median(embeddedUploads.map((u) => u.rssGrowth)))} MB)`,
        ...roundRatios(scaledUploads.map((u) => u.result.rssGrowth / uploadBytes)),
        target: '≤ 0.25',
      },
      {
        id: 'S3s',
        measure: `platform CPU per upload, scaled ÷ embedded (${ms(median(scaledUploads.map((u) => u.result.ticks))).toFixed(0)} vs ${ms(median(embeddedUploads.map((u) => u.ticks))).toFixed(0)} ms)`,
        ...roundRatios(scaledUploads.map((u, i) => u.result.ticks / Math.max(1, embeddedUploads[i]!.ticks))),
        beside: `with the engines ${median(scaledUploads.map((u, i) => withEnginesMs(u) / ms(embeddedUploads[i]!.ticks))).toFixed(2)} (s3rver ${ms(median(scaledUploads.map((u) => u.engines.s3rver))).toFixed(0)} ms, PostgreSQL ${ms(median(scaledUploads.map((u) => u.engines.postgres))).toFixed(0)} ms)`,
        target: '—',
      },
      requestRow('S4s', 'GET asset, scaled ÷ embedded', 'get'),
      requestRow('S5s', 'download_url, scaled ÷ embedded', 'url'),
    ];
  } finally {
    await stopAll(children);
    await engines?.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}
