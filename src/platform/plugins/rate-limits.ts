import rateLimit, { normalizeIP, type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import LocalStore from '@fastify/rate-limit/store/LocalStore.js';
import RedisStore from '@fastify/rate-limit/store/RedisStore.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Redis } from 'ioredis';
import type { RedisDegradedMode } from '../shared-state/degraded-mode';

/** Counts kept in Redis, one budget for every instance; in degraded mode each instance's own. */
export interface SharedRateLimitStore {
  redis: Redis;
  nameSpace: string;
  degraded: RedisDegradedMode;
}

export interface RateLimitOptions {
  /** Requests per address and window. */
  max: number;
  timeWindow: number;
  /** Counts kept in Redis (shared-state.ts); else in memory. */
  redis?: SharedRateLimitStore;
}

type Counted = { current: number; ttl: number };
type Counter = (error: Error | null, counted: Counted | null) => void;
interface Store {
  incr(key: string, done: Counter, timeWindow: number, max: number): void;
  child(routeOptions: unknown): Store;
}

/**
 * The plugin's Redis store, and its memory store for when Redis fails or degraded mode is on: the
 * limits then hold per instance (each its own budget) rather than not at all. A child (a route's
 * own limit, such as the token endpoint's) is the pair of both stores' children.
 */
class StoreWithFallback implements Store {
  constructor(
    private readonly shared: Store,
    private readonly local: Store,
    private readonly degraded: RedisDegradedMode,
  ) {}

  incr(key: string, done: Counter, timeWindow: number, max: number) {
    if (this.degraded.active) {
      this.degraded.skipped();
      return this.local.incr(key, done, timeWindow, max);
    }
    this.shared.incr(
      key,
      (error, counted) => {
        if (!error) return done(null, counted);
        this.degraded.failed(error);
        this.local.incr(key, done, timeWindow, max);
      },
      timeWindow,
      max,
    );
  }

  child(routeOptions: unknown) {
    return new StoreWithFallback(
      this.shared.child(routeOptions),
      this.local.child(routeOptions),
      this.degraded,
    );
  }
}

/**
 * The key an address counts under, on the API and on every other route: the plugin's own
 * `normalizeIP`, which keys an IPv6 address by its /64 (one client holds a whole /64) and an
 * IPv4-mapped one as its IPv4 address. It first tests every address with Node's `isIPv6`, a long
 * regular expression that took about 1 µs of each API read in a perf profile (docs/benchmarks.md,
 * "A perf profile of GET asset"); an address without a colon is not IPv6, and for such an address
 * `normalizeIP` only lowercases it.
 */
const addressKey = (ip: string) => (ip.includes(':') ? normalizeIP(ip) : ip.toLowerCase());

/** What a spent budget answers: errors.ts makes it the problem JSON 429 `rate_limited`. */
const refusal = (after: string) =>
  Object.assign(new Error(`Rate limit exceeded, retry in ${after}`), { statusCode: 429 });

/**
 * The per-address rate limit: @fastify/rate-limit on every route but the API's, and for the API a
 * count in the very store the plugin counts in, so that an address has one budget, each request
 * counted once. The API's hook (composition/app.ts) counts before it authenticates, so that requests refused at
 * authentication count too (H3).
 *
 * Why the API does not run the plugin's own handler (`app.rateLimit()`) in that hook: the handler is
 * three promises deep even when the store answers at once, as the memory store does. On a fast
 * machine that was about 4 µs of a 70 µs API read (S4c, docs/benchmarks.md). Counted here, a
 * request the store answers at once goes on to authentication in the same turn of the event loop.
 * The 429 has the plugin's headers: the counters and `Retry-After`.
 */
export async function rateLimits(app: FastifyInstance, options: RateLimitOptions) {
  const local = new LocalStore(false, false) as unknown as Store;
  const store = options.redis
    ? new StoreWithFallback(
        new RedisStore(false, false, options.redis.redis, options.redis.nameSpace) as unknown as Store,
        local,
        options.redis.degraded,
      )
    : local;
  // The plugin makes its store with `new`; a function that returns an object hands it that object.
  const sharedStore = function () {
    return store;
  } as unknown as FastifyRateLimitStoreCtor;
  await app.register(rateLimit, {
    store: sharedStore,
    max: options.max,
    timeWindow: options.timeWindow,
    keyGenerator: (request) => addressKey(request.ip),
    // The counters (limit, remaining, reset) come with a 429 only, beside its Retry-After
    // (decisions.md): on every other answer they cost about 5% of an API read's CPU (three headers
    // Node validates and writes), and no client of ours reads them before it is refused.
    addHeadersOnExceeding: {
      'x-ratelimit-limit': false,
      'x-ratelimit-remaining': false,
      'x-ratelimit-reset': false,
    },
    errorResponseBuilder: (_request, context) => refusal(context.after),
  });

  /**
   * Counts an API request against its address's budget, then calls `next`: with the 429 once the
   * budget is spent, with nothing otherwise.
   */
  return function countApiRequest(
    request: FastifyRequest,
    reply: FastifyReply,
    next: (refused?: Error) => void,
  ) {
    store.incr(
      addressKey(request.ip),
      (error, counted) => {
        if (error || !counted) return next(error ?? undefined);
        if (counted.current <= options.max) return next();
        const seconds = Math.ceil(counted.ttl / 1000);
        reply.headers({
          'x-ratelimit-limit': options.max,
          'x-ratelimit-remaining': 0,
          'x-ratelimit-reset': seconds,
          'retry-after': seconds,
        });
        next(refusal(`${seconds} seconds`));
      },
      options.timeWindow,
      options.max,
    );
  };
}
