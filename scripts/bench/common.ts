/** What every part of `npm run bench` uses: medians, waiting for servers, a token, the table. */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Agent, type IncomingMessage, request } from 'node:http';
import sharp from 'sharp';

/** The processes a process started that still run, and theirs (the platform's PDF render processes). */
function descendants(pid: number): number[] {
  const children = readdirSync(`/proc/${pid}/task`).flatMap((tid) => {
    try {
      const listed = readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
      return listed ? listed.split(' ').map(Number) : [];
    } catch {
      return [];
    }
  });
  return children.flatMap((child) => [child, ...descendants(child)]);
}

/** A file of /proc/<pid>/, or '' once the process is gone. */
const procFile = (pid: number, file: string) => {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return '';
  }
};

/**
 * CPU of a process in clock ticks of 1/100 s: its utime + stime (all its threads: libuv's pool,
 * workers), those of the processes it started that still run (the PDF render processes), and
 * cutime + cstime, theirs once ended (a render process replaced after a render).
 */
export function cpuTicks(pid: number): number {
  const fields = procFile(pid, 'stat').split(') ')[1]?.split(' ') ?? [];
  const own = Number(fields[11] ?? 0) + Number(fields[12] ?? 0);
  const ended = Number(fields[13] ?? 0) + Number(fields[14] ?? 0);
  const running = descendants(pid).reduce((sum, child) => {
    const theirs = procFile(child, 'stat').split(') ')[1]?.split(' ') ?? [];
    return sum + Number(theirs[11] ?? 0) + Number(theirs[12] ?? 0);
  }, 0);
  return own + ended + running;
}

const ownRss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(procFile(pid, 'status'))?.[1] ?? 0) * 1024;

/**
 * Resident memory of a process and of the processes it started (the platform's PDF render
 * processes: their memory is the platform's as an operator counts it), in bytes (Linux).
 */
export const rssBytes = (pid: number) =>
  descendants(pid).reduce((sum, child) => sum + ownRss(child), ownRss(pid));

/** Microseconds of CPU per clock tick (Linux's USER_HZ). */
export const tickMicros = 10_000;

/** The middle value; NaN for none (a part that measured nothing, as BENCH_ONLY=requests does for S1–S3). */
export const median = (values: number[]) =>
  values.length === 0 ? NaN : [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `url` answers at all (a server started by the bench is up), for up to `seconds`. */
export async function waitFor(url: string, seconds = 30) {
  for (let i = 0; i < seconds * 10; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await sleep(100);
  }
  throw new Error(`${url} did not start`);
}

/** An access token of the demo issuer through the real sign-in flow, with the script people use. */
export const issuerToken = (platformUrl: string, dataDir: string) =>
  demoToken(platformUrl, dataDir, 'issuer@demo.test');

/** An access token of one of the demo people (`investor@demo.test`, …) through the real sign-in flow. */
export function demoToken(platformUrl: string, dataDir: string, email: string): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    const script = spawn('bash', ['scripts/curl-sign-in.sh', email], {
      env: { ...process.env, PLATFORM_URL: platformUrl, DATA_DIR: dataDir, PRINT_TOKEN: '1' },
    });
    let out = '';
    let errors = '';
    script.stdout.on('data', (d) => (out += d));
    script.stderr.on('data', (d) => (errors += d));
    script.on('exit', (code) =>
      code === 0
        ? resolve(/^access_token=(.*)$/m.exec(out)![1]!)
        : reject(new Error(`curl-sign-in.sh failed (${code}): ${out}${errors}`)),
    );
  });
}

/** Starts `node --import tsx ARGS` for the bench, quiet, remembered in `children` to be stopped after. */
export function startNode(
  children: ChildProcess[],
  args: string[],
  env: Record<string, string> = {},
  cwd?: string,
) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd,
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  children.push(child);
  return child;
}

/** Stops the bench's programs (SIGTERM) and waits until each has exited. */
export async function stopAll(children: ChildProcess[]) {
  await Promise.all(
    children.map((child) => {
      if (child.exitCode !== null || child.signalCode !== null) return undefined;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      return exited;
    }),
  );
}

/**
 * A platform of the bench's own, in `work/data-PORT`, with the demo data and rate limits out of the
 * way, and an issuer's access token for it. `checkout` runs another copy of the code (bench:against).
 */
export async function startBenchPlatform(
  work: string,
  port: number,
  env: Record<string, string>,
  children: ChildProcess[],
  checkout?: string,
) {
  const platformUrl = `http://127.0.0.1:${port}`;
  const dataDir = join(work, `data-${port}`);
  const child = startNode(
    children,
    ['src/platform/main.ts'],
    {
      DATA_DIR: dataDir,
      DEMO_SEED: '1',
      PLATFORM_PORT: String(port),
      API_RATE_LIMIT: '100000000',
      TOKEN_RATE_LIMIT: '100000',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ...env,
    },
    checkout,
  );
  await waitFor(`${platformUrl}/healthz`);
  const token = await issuerToken(platformUrl, dataDir);
  return { platformUrl, token, pid: child.pid!, dataDir };
}

export interface LoadOptions {
  headers?: Record<string, string>;
  /** How long to load, in milliseconds (3 s unless said). */
  ms?: number;
  /** Concurrent keep-alive connections, each sending its next request when the last one is answered. */
  loops: number;
  /** Sees every answer's head (which instance behind nginx answered it, say). */
  onResponse?: (res: IncomingMessage) => void;
}

/**
 * GETs `url` from `loops` concurrent keep-alive loops for `ms`, reading every body in full; answers
 * each request's latency in milliseconds. Any answer but 200 fails the measure.
 */
export async function latencies(url: string, options: LoadOptions & { ms: number }) {
  const agent = new Agent({ keepAlive: true, maxSockets: options.loops });
  const samples: number[] = [];
  const until = performance.now() + options.ms;
  const loop = async () => {
    while (performance.now() < until) {
      const started = performance.now();
      await new Promise<void>((resolve, reject) =>
        request(url, { agent, headers: options.headers }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
          options.onResponse?.(res);
          res.resume();
          res.on('end', () => resolve());
        })
          .on('error', reject)
          .end(),
      );
      samples.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: options.loops }, loop));
  agent.destroy();
  return samples;
}

/** Requests per second of the same load. */
export async function throughput(url: string, options: LoadOptions) {
  const ms = options.ms ?? 3000;
  return (await latencies(url, { ...options, ms })).length / (ms / 1000);
}

/** One load on one server: its request rate and the server's CPU time per request. */
export interface Load {
  perSecond: number;
  cpuMicrosPerRequest: number;
}

/**
 * The load of `throughput`, with the CPU time the server process `pid` spent meanwhile (from
 * /proc/PID/stat) divided by the requests it served. On a shared machine the rate moves with
 * whatever else runs; the CPU a request costs barely does, so it is the figure to steer by.
 */
export async function load(url: string, pid: number, options: LoadOptions): Promise<Load> {
  const ms = options.ms ?? 3000;
  const ticks = cpuTicks(pid);
  const requests = (await latencies(url, { ...options, ms })).length;
  return {
    perSecond: requests / (ms / 1000),
    cpuMicrosPerRequest: ((cpuTicks(pid) - ticks) * tickMicros) / requests,
  };
}

/** Per-round ratios of interleaved rounds: their median and their spread (lowest, highest). */
export function roundRatios(ratios: number[]) {
  return { ratio: median(ratios), spread: [Math.min(...ratios), Math.max(...ratios)] as const };
}

/**
 * A request-rate comparison of interleaved rounds (round i of `ours` ran beside round i of `base`),
 * steered by CPU per request: base's CPU per request ÷ ours, so that it reads like the rate ratio
 * (higher is better for us) and keeps its target; the rate ratio stays beside it.
 */
export function cpuRow(id: string, measure: string, ours: Load[], base: Load[], target: string): BenchRow {
  const byCpu = roundRatios(ours.map((o, i) => base[i]!.cpuMicrosPerRequest / o.cpuMicrosPerRequest));
  const byRate = median(ours.map((o, i) => o.perSecond / base[i]!.perSecond));
  return {
    id,
    measure: `${measure} (CPU per request ${micros(base)} ÷ ${micros(ours)} µs)`,
    ...byCpu,
    beside: `req/s ${byRate.toFixed(2)} (${median(ours.map((o) => o.perSecond)).toFixed(0)} vs ${median(base.map((o) => o.perSecond)).toFixed(0)})`,
    target,
  };
}

const micros = (loads: Load[]) => median(loads.map((l) => l.cpuMicrosPerRequest)).toFixed(0);

export interface BenchRow {
  id: string;
  measure: string;
  /** The steering figure: for request rates, by CPU per request (`cpuRow`). */
  ratio: number;
  /** The lowest and highest per-round ratio, when the rounds were interleaved. */
  spread?: readonly [number, number];
  /** Another reading of the same rounds, e.g. the request-rate ratio beside the CPU one. */
  beside?: string;
  target: string;
}

export function printRows(rows: BenchRow[]) {
  console.log('\n| id | measure | ratio | spread | beside | target |\n|---|---|---|---|---|---|');
  for (const row of rows)
    console.log(
      `| ${row.id} | ${row.measure} | ${row.ratio.toFixed(3)} | ${row.spread ? `${row.spread[0].toFixed(2)}–${row.spread[1].toFixed(2)}` : '—'} | ${row.beside ?? ''} | ${row.target} |`,
    );
}

/**
 * A 4000 × 3000 photo-like JPEG (S7's and Peer-3's source): noise blown up from a small image, so that
 * it has smooth areas and edges, about the size a camera writes.
 */
export async function photoJpeg() {
  const small = await sharp({
    create: {
      width: 400,
      height: 300,
      channels: 3,
      background: { r: 0, g: 0, b: 0 },
      noise: { type: 'gaussian', mean: 128, sigma: 50 },
    },
  })
    .png()
    .toBuffer();
  return sharp(small).resize(4000, 3000, { kernel: 'cubic' }).jpeg({ quality: 85 }).toBuffer();
}
