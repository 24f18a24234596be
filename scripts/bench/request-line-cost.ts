/**
 * S4m′ of `npm run bench` (BENCH_ONLY=request-line): what the request line at `info` and the
 * metrics (METRICS_PORT) add to an API read, counted in instructions rather than timed, so that a
 * busy machine does not blur it (docs/benchmarks.md, "Metrics and the request line").
 *
 * Two platforms run under valgrind's callgrind, which counts every user-space instruction the
 * process executes: "with" (LOG_LEVEL=info, METRICS_PORT set, its log read through a pipe as a log
 * collector would) and "without" (LOG_LEVEL=warn, no metrics). Each reads the same
 * GET /v2/core/assets/:id, warmed up first; then in paired rounds, each side in turn takes a batch
 * of the same number of requests (the side that goes first alternates), and every batch is
 * bracketed by marks (instruction-marks.ts) on both processes. What a process counts while the
 * other one is loaded is its background (timers: the log's flush, the event-loop-delay sampler),
 * which runs by the clock, not by the request; under valgrind a batch lasts ~50× longer than it
 * would natively, so that background is taken off each batch at the rate measured beside it.
 *
 * Both sides run with V8's tiers pinned (BENCH_S4M_MAX_OPT, default 1: every function compiled by
 * Sparkplug on its first call, `--always-sparkplug`, and never optimized further, `--max-opt=1`).
 * With the optimizing compiler free, it ran in every batch after thousands of requests and left
 * code at different tiers on the two sides, which moved each side by more than the difference.
 * Pinned, both sides run the same kind of code in every batch; the instructions V8 still spends
 * compiling or deoptimizing in a batch are printed per round (none, once warm). Baseline code runs
 * more instructions than optimized code, so the figure is an upper bound of what the same work
 * costs once optimized; the in-process cross-check (request-line-in-process.ts) times it optimized.
 *   S4m′  instructions per request, with − without (median of the rounds' differences, their
 *         lowest and highest as the spread), and the same in µs: ÷ this machine's instructions per
 *         µs for this code, from "without"'s instructions per request under callgrind and its user
 *         CPU per request run natively with the same flags in this run (the target: ≤ 5 µs)
 * Needs valgrind (`apt-get install valgrind`). The platforms listen on BENCH_PORT (4990) to
 * BENCH_PORT + 7.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'node:http';
import { type BenchRow, issuerToken, median, sleep, startNode, stopAll, waitFor } from './common';
import { uploadLogo } from './upload';

const warmUpRequests = Number(process.env.BENCH_S4M_WARM_UP ?? 4000);
const batchRequests = Number(process.env.BENCH_S4M_BATCH ?? 1000);
const rounds = Number(process.env.BENCH_S4M_ROUNDS ?? 7);
/**
 * One request at a time on one keep-alive connection: each event-loop turn of the platform then
 * serves exactly one request. With several in flight, how many requests one turn finds depends on
 * how fast each side runs, and the per-turn work shared among them moved the count by more than
 * what is measured.
 */
const loops = 1;

/**
 * V8's highest tier on both sides (0 interpreter, 1 Sparkplug, 3 TurboFan), the same natively for
 * the conversion to µs. At 1, Sparkplug compiles each function on its first call, during start-up
 * and the warm-up, so that no batch runs code at another tier than the batch before.
 */
const maxOpt = Number(process.env.BENCH_S4M_MAX_OPT ?? 1);
const tierFlags = [`--max-opt=${maxOpt}`, ...(maxOpt === 1 ? ['--always-sparkplug'] : [])];
/**
 * Compilation and collection on the main thread, as they come: no background thread's work from
 * one batch spills into the next. No full collections started because the process went idle (V8's
 * memory reducer): here each side idles while the other is loaded, which a loaded server never does.
 */
const threadFlags = ['--single-threaded', '--no-memory-reducer'];

interface Side {
  name: 'with' | 'without';
  env: Record<string, string>;
}
const sides: Side[] = [
  { name: 'with', env: { LOG_LEVEL: 'info', METRICS_PORT: '' } },
  { name: 'without', env: { LOG_LEVEL: 'warn' } },
];

/** A platform to load: its address, a token and the asset it reads. */
interface Target {
  url: string;
  auth: Record<string, string>;
  assetId: number;
}

interface Counted extends Target {
  side: Side;
  pid: number;
  outDir: string;
  /** The marks so far: when each was answered, and the instructions counted since the one before. */
  marks: { at: number; instructions: number; compiling: number }[];
}

/** A platform under callgrind, its log drained from a pipe; resolves once it answers. */
async function startCounted(work: string, side: Side, port: number, children: ChildProcess[]) {
  const dataDir = join(work, `data-${side.name}`);
  const outDir = join(work, `callgrind-${side.name}`);
  mkdirSync(outDir, { recursive: true });
  const env = { ...side.env, ...(side.env.METRICS_PORT === '' ? { METRICS_PORT: String(port + 1) } : {}) };
  const child = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      `--callgrind-out-file=${join(outDir, 'cg.%p')}`,
      '--dump-before=getppid',
      // Counting starts after the warm-up (instrumentationOn): start-up runs at a fraction of the cost.
      '--instr-atstart=no',
      // Only the counts are read: no per-line or per-instruction detail to write at each mark.
      '--dump-line=no',
      '--compress-strings=no',
      process.execPath,
      ...tierFlags,
      ...threadFlags,
      '--import',
      'tsx',
      '--import',
      './scripts/bench/instruction-marks.ts',
      'src/platform/main.ts',
    ],
    {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DEMO_SEED: '1',
        PLATFORM_PORT: String(port),
        API_RATE_LIMIT: '100000000',
        TOKEN_RATE_LIMIT: '100000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let stderr = '';
  child.stdout!.resume();
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}`;
  // Under valgrind the platform takes a minute or more to start.
  const started = Promise.race([
    waitForLong(url),
    new Promise((_, reject) =>
      child.once('exit', (code) => reject(new Error(`valgrind (${side.name}) exited ${code}: ${stderr}`))),
    ),
  ]);
  await started;
  const token = await issuerToken(url, dataDir);
  const assetId = await uploadLogo(url, token);
  const counted: Counted = {
    side,
    url,
    pid: child.pid!,
    outDir,
    auth: { authorization: `Bearer ${token}` },
    assetId,
    marks: [],
  };
  return counted;
}

async function waitForLong(url: string) {
  for (let i = 0; i < 20; i++) {
    try {
      return await waitFor(`${url}/livez`);
    } catch {
      // waitFor gives up after 30 s; valgrind (or a busy machine) may need longer.
    }
  }
  throw new Error(`${url} did not start under valgrind`);
}

/** The dumps callgrind has written for `pid`: files cg.PID.1, cg.PID.2, … */
const dumpsOf = (counted: Counted) =>
  readdirSync(counted.outDir)
    .map((name) => new RegExp(`^cg\\.${counted.pid}\\.(\\d+)$`).exec(name)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);

/** Marks `counted`: asks for a dump and waits until it is written whole; records its count. */
async function mark(counted: Counted) {
  const next = Math.max(0, ...dumpsOf(counted)) + 1;
  const file = join(counted.outDir, `cg.${counted.pid}.${next}`);
  process.kill(counted.pid, 'SIGUSR2');
  for (let i = 0; i < 1200; i++) {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
    const summary = /^summary: (\d+)$/m.exec(text);
    if (summary && /^totals: /m.test(text)) {
      counted.marks.push({
        at: performance.now(),
        instructions: Number(summary[1]),
        compiling: compiling(file),
      });
      return;
    }
    await sleep(50);
  }
  throw new Error(`callgrind wrote no dump ${file}`);
}

/** V8's runtime functions that compile code or throw compiled code away (on the main thread). */
const compilingFunctions = [
  'Runtime_CompileLazy',
  'Runtime_CompileBaseline',
  'Runtime_InstallBaselineCode',
  'Runtime_CompileOptimized',
  'Runtime_CompileOptimizedOSR',
  'Runtime_NotifyDeoptimized',
];

/**
 * The instructions of a dump spent compiling or deoptimizing code: none once the platform is warm
 * with its tiers pinned, which the bench prints per round to show it.
 */
function compiling(file: string) {
  const annotated =
    spawnSync('callgrind_annotate', ['--inclusive=yes', file], { encoding: 'utf8' }).stdout ?? '';
  let total = 0;
  for (const name of compilingFunctions) {
    const line = new RegExp(`^\\s*([\\d,]+) .*v8::internal::${name}\\(`, 'm').exec(annotated);
    if (line) total += Number(line[1]!.replaceAll(',', ''));
  }
  return total;
}

/** `total` GETs of the asset from `loops` keep-alive connections; every answer must be 200. */
async function requests(counted: Target, total: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: loops });
  const url = `${counted.url}/v2/core/assets/${counted.assetId}`;
  let left = total;
  const loop = async () => {
    while (left > 0) {
      left--;
      await new Promise<void>((resolve, reject) =>
        request(url, { agent, headers: counted.auth }, (res) => {
          if (res.statusCode !== 200) reject(new Error(`${url} answered ${res.statusCode}`));
          res.resume();
          res.on('end', () => resolve());
        })
          .on('error', reject)
          .end(),
      );
    }
  };
  await Promise.all(Array.from({ length: loops }, loop));
  agent.destroy();
}

/** Starts counting in `counted` (callgrind_control talks to the process through vgdb). */
async function instrumentationOn(counted: Counted) {
  await new Promise<void>((resolve, reject) =>
    spawn('callgrind_control', ['--instr=on', String(counted.pid)], { stdio: 'ignore' }).once(
      'exit',
      (code) => (code === 0 ? resolve() : reject(new Error(`callgrind_control answered ${code}`))),
    ),
  );
}

/** Marks both processes, in the same order each time. */
const markBoth = async (both: Counted[]) => {
  for (const counted of both) await mark(counted);
};

/** User-mode CPU of a process in clock ticks (1/100 s): what callgrind's count corresponds to. */
function userTicks(pid: number) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]);
}

/** Native user CPU per request of a platform, `ms` of load from 32 connections. */
async function nativeUserMicros(url: string, pid: number, auth: Record<string, string>, assetId: number) {
  const before = userTicks(pid);
  const counted: Target = { url, auth, assetId };
  const started = performance.now();
  let served = 0;
  while (performance.now() - started < 2000) {
    await requests(counted, 500);
    served += 500;
  }
  return ((userTicks(pid) - before) * 10_000) / served;
}

/** "without" natively: the same node flags as under callgrind, its log at `warn`, no metrics. */
async function startNative(work: string, port: number, children: ChildProcess[]) {
  const platformUrl = `http://127.0.0.1:${port}`;
  const dataDir = join(work, `data-native`);
  const child = startNode(children, [...tierFlags, ...threadFlags, 'src/platform/main.ts'], {
    DATA_DIR: dataDir,
    DEMO_SEED: '1',
    PLATFORM_PORT: String(port),
    API_RATE_LIMIT: '100000000',
    TOKEN_RATE_LIMIT: '100000',
    LOG_LEVEL: 'warn',
  });
  // Sparkplug compiling every function on its first call makes the start slower on a busy machine.
  await waitForLong(platformUrl);
  return { platformUrl, pid: child.pid!, token: await issuerToken(platformUrl, dataDir) };
}

export async function benchRequestLineCost(): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'bench-request-line-'));
  const port = Number(process.env.BENCH_PORT ?? 4990);
  const children: ChildProcess[] = [];
  try {
    const both = await Promise.all(sides.map((side, i) => startCounted(work, side, port + 2 * i, children)));
    for (const counted of both) await requests(counted, warmUpRequests);
    for (const counted of both) await instrumentationOn(counted);
    // Per round: [this side's batch, its background while the other side's batch ran].
    const perRequest: Record<Side['name'], number[]> = { with: [], without: [] };
    const background: Record<Side['name'], number[]> = { with: [], without: [] };
    const compiles: Record<Side['name'], number[]> = { with: [], without: [] };
    await markBoth(both);
    for (let round = 0; round < rounds; round++) {
      // The side that goes first alternates.
      const order = round % 2 === 0 ? both : [...both].reverse();
      for (const loaded of order) {
        await requests(loaded, batchRequests);
        await markBoth(both);
      }
      for (const counted of both) {
        const [a, b, c] = counted.marks.slice(-3);
        const loadedFirst = order[0] === counted;
        const [busy, idle] = loadedFirst
          ? [
              [a!, b!],
              [b!, c!],
            ]
          : [
              [b!, c!],
              [a!, b!],
            ];
        const idlePerMs = idle[1]!.instructions / (idle[1]!.at - idle[0]!.at);
        const busyMs = busy[1]!.at - busy[0]!.at;
        // Compiling stays in (none once warm, with the tiers pinned); it is printed to show it.
        const work = busy[1]!.instructions - idlePerMs * busyMs;
        perRequest[counted.side.name].push(work / batchRequests);
        background[counted.side.name].push(idlePerMs * 1000);
        compiles[counted.side.name].push(busy[1]!.compiling / batchRequests);
      }
      console.error(
        `S4m′ round ${round + 1}: with ${perRequest.with.at(-1)!.toFixed(0)}, without ${perRequest.without.at(-1)!.toFixed(0)} instructions per request (compiling or deoptimizing: ${compiles.with.at(-1)!.toFixed(0)}, ${compiles.without.at(-1)!.toFixed(0)})`,
      );
    }
    await stopAll(children);
    children.length = 0;

    // The conversion: "without"'s GET natively with the same flags, its user CPU per request.
    const native = await startNative(work, port + 4, children);
    const auth = { authorization: `Bearer ${native.token}` };
    const assetId = await uploadLogo(native.platformUrl, native.token);
    await requests({ url: native.platformUrl, auth, assetId }, warmUpRequests);
    const nativeMicros: number[] = [];
    for (let round = 0; round < rounds; round++)
      nativeMicros.push(await nativeUserMicros(native.platformUrl, native.pid, auth, assetId));

    const differences = perRequest.with.map((w, i) => w - perRequest.without[i]!);
    const added = median(differences);
    const withoutInstructions = median(perRequest.without);
    const perMicro = withoutInstructions / median(nativeMicros);
    const [low, high] = [Math.min(...nativeMicros), Math.max(...nativeMicros)];
    // The count holds on a busy machine; the conversion does not: say when the machine's speed moved.
    const unsteady =
      high / low > 1.5
        ? `; the conversion moved ${(high / low).toFixed(1)}× between rounds: no µs figure`
        : '';
    const round0 = (n: number) => n.toFixed(0);
    return [
      {
        id: 'S4m′',
        measure:
          `GET asset, instructions per request with the request line at info and the metrics on − without ` +
          `(callgrind, tiers pinned: ${tierFlags.join(' ')}; ${rounds} paired rounds of ${batchRequests} a side; ` +
          `with ${round0(median(perRequest.with))}, without ${round0(withoutInstructions)}; background ` +
          `${round0(median(background.with))} / ${round0(median(background.without))} per s taken off; compiling ` +
          `or deoptimizing ${round0(median(compiles.with))} / ${round0(median(compiles.without))} per request). ` +
          `In µs: ÷ ${round0(perMicro)} instructions per µs (without's ${round0(withoutInstructions)} ÷ its native ` +
          `user CPU with the same flags, ${median(nativeMicros).toFixed(1)} µs per request, rounds ` +
          `${low.toFixed(1)}–${high.toFixed(1)}${unsteady})`,
        ratio: added / perMicro,
        spread: [Math.min(...differences) / perMicro, Math.max(...differences) / perMicro],
        beside: `+${round0(added)} instructions per request (rounds ${round0(Math.min(...differences))} to ${round0(Math.max(...differences))})`,
        target: '≤ 5 µs',
      },
    ];
  } finally {
    await stopAll(children);
    rmSync(work, { recursive: true, force: true });
  }
}
