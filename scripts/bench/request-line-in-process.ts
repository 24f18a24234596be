/**
 * S4mi of `npm run bench` (BENCH_ONLY=request-line, beside S4m′): the same question as S4m′ — what
 * the request line at `info` and the metrics add to an API request — timed in process, with V8's
 * tiers free (optimized code, as in production), as a cross-check of the instruction count.
 *
 * A request's line and metrics are the work of one call: Fastify's log controller
 * (`RequestLog.requestCompleted`, plugins/request-log.ts) once the answer is sent. Everything else a
 * request does is the same with and without them (the per-request child logger included: Fastify
 * makes it whenever there is a logger). So each variant below is a Fastify app configured as the
 * platform configures itself, its logger writing through the platform's buffered output
 * (plugins/log-output.ts) into /dev/null (the write calls are made; a pipe's reader is not there to pay for), and the request and
 * answer of one real GET through it (`inject`); the bench then calls the log controller with them
 * in a loop, yielding to the event loop every 64 calls as a server does between requests, and
 * waits for the destination to be flushed at the end of each batch (its writes are part of the
 * cost). The variants take turns in every round, in a rotating order; the process's CPU
 * (`process.cpuUsage`: user + system, the thread pool's writes included) and wall time per call.
 *   S4mi  µs of CPU per request, "both" (info + metrics) − "none" (warn, no metrics: S4m′'s
 *         "without"), median of the rounds, their lowest and highest as the spread; beside it the
 *         line alone, the metrics alone, the line serialized into a stream that discards it (no
 *         write at all), and the same figures by wall time. The target: ≤ 5 µs.
 */
import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { createPlatformMetrics } from '../../src/platform/metrics';
import { bufferedStdout } from '../../src/platform/plugins/log-output';
import { RequestLog } from '../../src/platform/plugins/request-log';
import { type BenchRow, median } from './common';

const calls = Number(process.env.BENCH_S4MI_CALLS ?? 20_000);
const rounds = Number(process.env.BENCH_S4MI_ROUNDS ?? 11);
/** Calls between two yields to the event loop, where the destination's writes complete. */
const callsPerTurn = 64;

interface VariantConfig {
  name: 'none' | 'metrics' | 'line' | 'both' | 'both, no write';
  level: 'info' | 'warn';
  metrics: boolean;
  /** The line serialized, then dropped: the cost of the log's output is what this one lacks. */
  discard?: boolean;
}

const configs: VariantConfig[] = [
  { name: 'none', level: 'warn', metrics: false },
  { name: 'metrics', level: 'warn', metrics: true },
  { name: 'line', level: 'info', metrics: false },
  { name: 'both', level: 'info', metrics: true },
  { name: 'both, no write', level: 'info', metrics: true, discard: true },
];

interface Variant extends VariantConfig {
  log: RequestLog;
  request: FastifyRequest;
  reply: FastifyReply;
  flush: () => Promise<void>;
  cpu: number[];
  wall: number[];
}

/**
 * A Fastify app configured as the platform's composition/app.ts does, and the request and answer
 * of one GET.
 */
async function variant(config: VariantConfig): Promise<Variant> {
  const metrics = config.metrics ? createPlatformMetrics() : undefined;
  const output = bufferedStdout({ dest: '/dev/null' });
  const stream = config.discard ? { write: () => {} } : output;
  const log = new RequestLog(metrics?.requestCompleted);
  const app = Fastify({
    logger: {
      level: config.level,
      stream,
      serializers: { req: (req) => ({ method: req.method, url: req.url.split('?')[0] }) },
    },
    logController: log,
    requestIdHeader: false,
    genReqId: () => randomUUID(),
  });
  let captured: { request: FastifyRequest; reply: FastifyReply } | undefined;
  app.addHook('onRequest', (request, reply, done) => {
    request.caller = { userId: 42, role: 'issuer', scope: 'full' };
    captured = { request, reply };
    done();
  });
  app.get('/v2/core/assets/:id', () => ({ id: 1 }));
  const answer = await app.inject({ method: 'GET', url: '/v2/core/assets/1' });
  if (answer.statusCode !== 200 || !captured)
    throw new Error(`the ${config.name} app answered ${answer.statusCode}`);
  return {
    ...config,
    log,
    ...captured,
    flush: () => new Promise<void>((resolve) => output.flush(resolve)),
    cpu: [],
    wall: [],
  };
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One batch: `calls` completed requests told to the variant's log controller; µs per call. */
async function batch(v: Variant) {
  const cpuBefore = process.cpuUsage();
  const wallBefore = performance.now();
  for (let done = 0; done < calls; done += callsPerTurn) {
    for (let i = 0; i < callsPerTurn; i++) v.log.requestCompleted(null, v.request, v.reply);
    await turn();
  }
  await v.flush();
  const cpu = process.cpuUsage(cpuBefore);
  return { cpu: (cpu.user + cpu.system) / calls, wall: ((performance.now() - wallBefore) * 1000) / calls };
}

export async function benchRequestLineInProcess(): Promise<BenchRow[]> {
  const variants = await Promise.all(configs.map(variant));
  // Warm: V8 optimizes the loop and the logger before the rounds are counted.
  for (let i = 0; i < 3; i++) for (const v of variants) await batch(v);
  for (let round = 0; round < rounds; round++) {
    const order = variants.map((_, i) => variants[(i + round) % variants.length]!);
    for (const v of order) {
      const { cpu, wall } = await batch(v);
      v.cpu.push(cpu);
      v.wall.push(wall);
    }
  }
  const none = variants.find((v) => v.name === 'none')!;
  /** Per round, the variant's µs per call minus "none"'s in the same round. */
  const added = (v: Variant, by: 'cpu' | 'wall') => v[by].map((x, i) => x - none[by][i]!);
  const both = variants.find((v) => v.name === 'both')!;
  const f = (n: number) => n.toFixed(2);
  const others = variants
    .filter((v) => v !== none && v !== both)
    .map((v) => `${v.name} +${f(median(added(v, 'cpu')))}`)
    .join(', ');
  const cpuAdded = added(both, 'cpu');
  return [
    {
      id: 'S4mi',
      measure:
        `the request line at info and the metrics, µs of CPU per request in process (the log controller ` +
        `called with one real GET's request and answer, ${rounds} rounds of ${calls} calls a variant, ` +
        `optimized code): both − none (both ${f(median(both.cpu))}, none ${f(median(none.cpu))} µs a call); beside ` +
        `it, the same by CPU: ${others}`,
      ratio: median(cpuAdded),
      spread: [Math.min(...cpuAdded), Math.max(...cpuAdded)],
      beside: `by wall time +${f(median(added(both, 'wall')))} µs`,
      target: '≤ 5 µs',
    },
  ];
}
