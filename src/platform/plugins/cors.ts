import cors from '@fastify/cors';
import type { FastifyInstance, FastifyReply } from 'fastify';

export interface CorsOptions {
  /** Origins allowed to read answers; `*` allows any. */
  origins: string[];
  /** Whether a path (no query) answers cross-origin requests at all. */
  allowed: (path: string) => boolean;
  methods: string[];
  allowedHeaders: string[];
  exposedHeaders: string[];
  /** Seconds a browser may keep a preflight's answer. */
  maxAge: number;
}

const pathOf = (url: string) => {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
};

/** `Vary: Origin`, added to whatever Vary the reply has (as @fastify/cors adds it). */
function varyOnOrigin(reply: FastifyReply) {
  const vary = reply.getHeader('vary');
  if (vary === undefined) reply.header('vary', 'Origin');
  else if (!/(^|,)\s*(\*|origin)\s*(,|$)/i.test(String(vary)))
    reply.header('vary', `${String(vary)}, Origin`);
}

/**
 * CORS with the answer decided by path: @fastify/cors answers preflights (OPTIONS), in a scope of
 * their own; the headers of every other response are set here, those @fastify/cors sets (but only
 * on answers to an allowed Origin, below).
 * Deciding by path takes @fastify/cors's per-request options (a delegator), which it copies and
 * normalizes on every request: that cost an API read about 5% of its time, for three headers.
 */
export async function pathCors(app: FastifyInstance, options: CorsOptions) {
  const anyOrigin = options.origins.includes('*');
  const origins = new Set(options.origins);
  const exposedHeaders = options.exposedHeaders.join(', ');

  app.addHook('onRequest', (request, reply, done) => {
    if (request.method === 'OPTIONS') return done();
    // The answer depends on Origin (for allowed paths), so caches must keep one per Origin.
    varyOnOrigin(reply);
    // A browser sends Origin with every cross-origin request, and reads the exposed headers only
    // of an answer that allows its origin: others (servers, curl, same-origin pages) get neither.
    const origin = request.headers.origin;
    if (origin !== undefined && (anyOrigin || origins.has(origin)) && options.allowed(pathOf(request.url))) {
      reply.header('access-control-allow-origin', anyOrigin ? '*' : origin);
      reply.header('access-control-expose-headers', exposedHeaders);
    }
    done();
  });

  const preflight = {
    origin: options.origins,
    methods: options.methods,
    allowedHeaders: options.allowedHeaders,
    exposedHeaders: options.exposedHeaders,
    maxAge: options.maxAge,
  };
  const noCors = { ...preflight, origin: false };
  // @fastify/cors's hook and its `OPTIONS *` route, which every OPTIONS request reaches, live in
  // this scope only: no other request runs its hook.
  await app.register(async (scope) => {
    await scope.register(cors, {
      delegator: (request, callback) =>
        callback(null, options.allowed(pathOf(request.url ?? '')) ? preflight : noCors),
    });
  });
}
