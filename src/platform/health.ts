import type { FastifyInstance } from 'fastify';
import { type DB, pingDatabase } from './db/database';

/** What /readyz asks, each a promise that rejects when that backend cannot serve. */
export interface ReadinessChecks {
  database: () => Promise<unknown>;
  blob_store: () => Promise<unknown>;
  /**
   * Only when REDIS_URL is set. Named, but not required: the platform serves without Redis
   * (shared-state.ts says how), and taking every instance out of rotation for it would not.
   */
  redis?: () => Promise<unknown>;
}

const optional = new Set<keyof ReadinessChecks>(['redis']);

type State = 'up' | 'down';

export interface Readiness {
  status: 'ready' | 'not_ready' | 'stopping';
  backends: Partial<Record<keyof ReadinessChecks, State>>;
}

/**
 * Longest a check may take: a backend slower than this counts as down, and /readyz answers the
 * load balancer in time (its own timeout is a few seconds).
 */
const checkTimeoutMs = 2000;
/** One round of checks serves every probe within this time, however many instances of nginx or kubelets ask. */
const cachedForMs = 1000;

function withinTimeout(check: () => Promise<unknown>): Promise<State> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<State>((resolve) => {
    timer = setTimeout(() => resolve('down'), checkTimeoutMs);
  });
  const checked = check().then(
    (): State => 'up',
    (): State => 'down',
  );
  return Promise.race([checked, timedOut]).finally(() => clearTimeout(timer));
}

/** Asks every backend at once; the answer is shared for `cachedForMs`. */
export function readinessOf(checks: ReadinessChecks, clock: () => number = Date.now) {
  let last: { at: number; answer: Promise<Readiness> } | undefined;
  const run = async (): Promise<Readiness> => {
    const named = Object.entries(checks).filter(([, check]) => check !== undefined) as [
      keyof ReadinessChecks,
      () => Promise<unknown>,
    ][];
    const states = await Promise.all(named.map(([, check]) => withinTimeout(check)));
    const backends = Object.fromEntries(named.map(([name], i) => [name, states[i]]));
    const ready = named.every(([name], i) => states[i] === 'up' || optional.has(name));
    return { status: ready ? 'ready' : 'not_ready', backends };
  };
  return () => {
    const now = clock();
    if (!last || now - last.at >= cachedForMs) last = { at: now, answer: run() };
    return last.answer;
  };
}

/** Instances that are stopping (shutdown.ts): their /readyz answers 503 whatever the backends say. */
const stopping = new WeakSet<FastifyInstance>();
export const markStopping = (app: FastifyInstance) => void stopping.add(app);

export const databaseCheck = (db: DB) => () => pingDatabase(db);

/**
 * Probes for a load balancer or an orchestrator (docs/deploy.md): `/livez` says the process
 * answers (restart it when it does not), `/readyz` whether it can serve now (send it no requests
 * while it cannot): 200 or 503, with each backend named and its state. `/healthz` is `/livez`, as
 * it always was. Outside the API's rate limit: /readyz asks the backends at most once a second
 * whoever calls it, and /livez costs nothing.
 */
export function healthRoutes(app: FastifyInstance, checks: ReadinessChecks) {
  const readiness = readinessOf(checks);
  const live = async () => ({ status: 'ok' });
  const options = { schema: { hide: true }, config: { rateLimit: false } } as const;
  app.get('/livez', options, live);
  app.get('/healthz', options, live);
  app.get('/readyz', options, async (_request, reply) => {
    if (stopping.has(app))
      return reply.code(503).header('cache-control', 'no-store').send({ status: 'stopping', backends: {} });
    const answer = await readiness();
    return reply
      .code(answer.status === 'ready' ? 200 : 503)
      .header('cache-control', 'no-store')
      .send(answer);
  });
}
