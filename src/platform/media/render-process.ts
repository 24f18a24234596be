/**
 * One render process of the PDF thumbnail pool, seen from the platform: how it is started (its
 * priority, its memory limits, its loader), how its CPU time and memory are read from /proc, and
 * how it is watched during a render. The pool (pdf-thumbnail-pool.ts) decides what each process
 * renders; the process itself is pdf-thumbnail-worker.ts.
 */
import { type ChildProcess, spawn as spawnProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import type { RangeAnswer, ThumbnailJob } from './pdf-thumbnail-worker';

/**
 * The first thing a render process runs, before it loads anything (plain CommonJS: no loader yet):
 * the lowest nice value for its main thread, the one that loads pdf.js and renders. Render
 * processes start with the platform, and loading pdf.js (about half a second of CPU each) at normal
 * priority held up the platform's first requests on a busy machine. Renders go lower still
 * (SCHED_IDLE, every thread of the process) at the first job: pdf-thumbnail-worker.ts says why.
 */
const lowerPriority = `try { require('node:os').setPriority(19); } catch {}`;

/**
 * Renders run in child processes, not worker threads: a thread's resource limits bound only its
 * JavaScript heap, and pdf.js keeps a decoded stream in an ArrayBuffer outside it. A 600 KB PDF
 * whose page inflates to 300 MB took 330 MB of the platform's memory per render, and the allocator
 * kept most of it. A process's whole memory can be watched (`maxRssMb`), it can be killed at any
 * moment without harm to the platform, and when it ends, all it took goes back to the system.
 *
 * The process runs from TypeScript source like the rest of the platform. It starts from a few
 * lines of plain JavaScript that lower its priority, load pdf.js, register tsx's ESM loader through
 * its API and then import the real entry: the same lines work under tsx (npm start, `node --import
 * tsx`) and under Vitest, which has no Node loader at all. pdf.js (3 MB of plain JavaScript) is
 * imported before the loader is registered: through tsx it was transformed again at every start
 * (8–12 s of a start on a busy machine, against about 1 s), and once loaded the entry's imports of
 * it are served from the module cache. Compiled to `.js`, the entry is imported directly.
 *
 * V8 flags of its own: the heap limit, and `--heap-growing-percent=100`, which lets the heap grow
 * to twice what it keeps live before its next full collection. Below 2 GB of heap V8 lets it grow
 * by only 1.3×, and pdf.js's garbage of each document brought a full collection every other render
 * (docs/benchmarks.md, "PDF thumbnails"). The IPC channel uses V8's serialization, so that byte
 * ranges and pixels pass as bytes, not as JSON arrays of numbers.
 */
export function startRenderProcess(settings: {
  maxHeapMb: number;
  maxDataMb: number;
  lowPriority: boolean;
}): ChildProcess {
  const here = import.meta.url;
  const load = (url: string) => `import(${JSON.stringify(url)})`;
  let entry: string;
  if (new URL(here).pathname.endsWith('.ts')) {
    // The ESM build of tsx's API: its CommonJS build registers the loader by a wrong relative path.
    const tsxApi = import.meta.resolve('tsx/esm/api');
    const plain = ['pdfjs-dist/legacy/build/pdf.mjs', 'pdfjs-dist/legacy/build/pdf.worker.mjs'].map((m) =>
      load(import.meta.resolve(m)),
    );
    entry =
      `Promise.all([${plain.join(', ')}])` +
      `.then(() => ${load(tsxApi)})` +
      `.then((tsx) => { tsx.register(); return ${load(new URL('./pdf-thumbnail-worker.ts', here).href)}; })`;
  } else {
    entry = load(new URL('./pdf-thumbnail-worker.js', here).href);
  }
  // A failure to load ends the process (and the pool hears of it), rather than leaving it idle.
  const code = `${settings.lowPriority ? lowerPriority : ''}\n${entry}.catch((error) => { console.error(error); process.exit(70); });`;
  const flags = [`--max-old-space-size=${settings.maxHeapMb}`, '--heap-growing-percent=100'];
  const [command, args] = withDataLimit(settings.maxDataMb, process.execPath, [...flags, '-e', code]);
  return spawnProcess(command, args, {
    // Its stdout would mix with the platform's log lines; its stderr says why it crashed, if it does.
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    serialization: 'advanced',
    // pdf-thumbnail-worker.ts's renderProcessMarker (a type-only import here: the module loads pdf.js).
    env: { ...process.env, PDF_RENDER_PROCESS: '1' },
  });
}

/**
 * The command that runs `command` with its data segment bounded to `maxDataMb` (RLIMIT_DATA: on
 * Linux every private writable mapping, so the ArrayBuffers pdf.js decodes streams into, the
 * canvas and libvips's buffers as well as the JavaScript heap). An allocation past it fails at
 * once, where watching the resident memory sees it only after the fact: pdf.js doubles a decoding
 * stream's buffer in one allocation (256 MB to 512 for a 300 MB stream), so a process watched every
 * 20 ms still passed its limit by that much, and two at once took the platform past 1 GB. A shell
 * sets the limit and replaces itself with the command (the IPC channel and environment pass
 * through `exec`); where there is no /bin/sh (not Linux), the watch alone bounds the process.
 */
function withDataLimit(maxDataMb: number, command: string, args: string[]): [string, string[]] {
  if (process.platform !== 'linux' || !existsSync('/bin/sh')) return [command, args];
  const script = `ulimit -d ${Math.round(maxDataMb * 1024)} && exec "$0" "$@"`;
  return ['/bin/sh', ['-c', script, command, ...args]];
}

/** A file of /proc/<pid>/, read at once (the pool's watch reads them many times a second); undefined where there is none. */
function procFile(pid: number | undefined, file: 'stat' | 'status'): string | undefined {
  if (pid === undefined) return undefined;
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'utf8');
  } catch {
    return undefined;
  }
}

/** CPU time (user + system, every thread) a process has used, in ms; undefined where unknown. */
function processCpuMs(pid: number | undefined): number | undefined {
  const stat = procFile(pid, 'stat');
  if (stat === undefined) return undefined;
  // Fields after the command (in parentheses, which may hold spaces): utime and stime are the
  // 14th and 15th, in clock ticks (100 a second on Linux).
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ticks) ? ticks * 10 : undefined;
}

/** Resident memory of a process in MB; undefined where unknown. */
export function processRssMb(pid: number | undefined): number | undefined {
  const kb = /VmRSS:\s+(\d+) kB/.exec(procFile(pid, 'status') ?? '');
  return kb ? Number(kb[1]) / 1024 : undefined;
}

/** Sends to a render process; a process that has gone meanwhile is the exit handler's to deal with. */
export function sendTo(worker: ChildProcess, message: ThumbnailJob | RangeAnswer) {
  if (worker.connected) worker.send(message, (error) => void error);
}

/** Kills a render process and answers once it is gone (at once if it already is). */
export function endProcess(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.kill('SIGKILL');
  return exited;
}

/** Milliseconds between two looks at a render process: its memory can grow by a few hundred MB a second. */
export const watchEveryMs = 20;

export interface RenderLimits {
  /** Resident memory, in MB. */
  maxRssMb: number;
  /** CPU time of the render, in ms (the wall clock where the CPU time cannot be read). */
  timeoutMs: number;
  /** Time on the wall clock, whatever CPU the render got. */
  wallTimeoutMs: number;
}

/**
 * Watches a render process from the start of a render until `stop`: calls `onLimit` once, when its
 * resident memory passes `maxRssMb`, when the render has used `timeoutMs` of CPU, or when
 * `wallTimeoutMs` have passed whatever it used. Looked at every 20 ms (a read of two files of
 * /proc, some 30 µs); without /proc, the wall clock alone at `timeoutMs`. `peakRssMb` is the most
 * it was seen to hold.
 */
export function watchRender(
  pid: number | undefined,
  limits: RenderLimits,
  onLimit: (failure: 'memory_limit' | 'timeout') => void,
) {
  const started = performance.now();
  const cpuAtStart = processCpuMs(pid);
  let peakRssMb: number | undefined;
  let timer: NodeJS.Timeout | undefined;
  const check = () => {
    const rss = processRssMb(pid);
    if (rss !== undefined) peakRssMb = Math.max(peakRssMb ?? 0, rss);
    if (rss !== undefined && rss > limits.maxRssMb) return onLimit('memory_limit');
    const wall = performance.now() - started;
    const cpu = cpuAtStart === undefined ? undefined : processCpuMs(pid);
    const used = cpu === undefined || cpuAtStart === undefined ? wall : cpu - cpuAtStart;
    if (used >= limits.timeoutMs || wall >= limits.wallTimeoutMs) return onLimit('timeout');
    timer = setTimeout(check, watchEveryMs).unref();
  };
  timer = setTimeout(check, watchEveryMs).unref();
  return {
    stop: () => clearTimeout(timer),
    peakRssMb: () => peakRssMb,
  };
}
