import type { FastifyBaseLogger } from 'fastify';
import { Redis, type RedisOptions } from 'ioredis';
import { RedisDegradedMode } from './degraded-mode';

/**
 * How long one Redis command may take before the request that waits on it gives up on Redis (and
 * goes on as `shared-state.ts` says). Redis answers in well under a millisecond; the rest is room
 * for a busy machine.
 */
export const redisCommandTimeoutMs = 2000;

/**
 * A request must never wait on a Redis that is gone: while disconnected, commands fail at once
 * (no offline queue, no retry of a command that was in flight), and a Redis that does not answer
 * fails them after `redisCommandTimeoutMs`. The connection itself is retried in the background.
 */
const options: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: redisCommandTimeoutMs,
  connectTimeout: 5000,
  retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
};

/** The URL without its password, for messages. */
function shown(url: string) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.href;
}

/**
 * A connection whose loss starts degraded mode (degraded-mode.ts logs it, once), rather than a line
 * with a stack trace at every retry.
 */
async function open(
  redis: Redis,
  url: string,
  lost: (error?: Error) => void,
  closing: () => boolean,
): Promise<Redis> {
  // At start a failure stops the start with its own message; without a listener ioredis would print too.
  const quiet = () => {};
  redis.on('error', quiet);
  try {
    await redis.connect();
  } catch (error) {
    redis.disconnect();
    throw new Error(`Redis at ${shown(url)} is not reachable: ${(error as Error).message}`);
  }
  redis.off('error', quiet);
  const lose = (error?: Error) => {
    if (!closing()) lost(error);
  };
  redis.on('error', lose);
  redis.on('close', () => lose());
  return redis;
}

export interface RedisConnection {
  /** Commands; a failed one rejects quickly (see `options`). */
  commands: Redis;
  /** Opens a second connection, for a subscription: a subscribed connection takes no other commands. */
  subscriber(): Promise<Redis>;
  /** Whether this instance runs without Redis just now; every failure of Redis is reported to it. */
  degraded: RedisDegradedMode;
  close(): Promise<void>;
}

/** Connects to `REDIS_URL`; the start fails with a clear message when Redis cannot be reached. */
export async function connectRedis(url: string, log: FastifyBaseLogger): Promise<RedisConnection> {
  const opened: Redis[] = [];
  let closing = false;
  const commands = new Redis(url, options);
  const degraded = new RedisDegradedMode(shown(url), () => commands.ping(), log);
  const lost = (error?: Error) => degraded.failed(error, false);
  await open(commands, url, lost, () => closing);
  opened.push(commands);
  return {
    commands,
    degraded,
    async subscriber() {
      const redis = await open(new Redis(url, options), url, lost, () => closing);
      opened.push(redis);
      return redis;
    },
    async close() {
      closing = true;
      degraded.close();
      // quit lets replies in flight arrive; a connection that is down is just dropped.
      await Promise.all(opened.map((redis) => redis.quit().catch(() => redis.disconnect())));
    },
  };
}
