import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { PlatformConfig } from '../env';
import { MemoryUploadSlots, type UploadSlots } from '../assets/upload-slots';
import { RedisUploadSlots } from '../assets/redis-upload-slots';
import { RedisRunningClaims } from '../assets/redis-running-claims';
import { MemoryRunningClaims, type RunningClaims } from '../assets/running-claims';
import { type AccessTokenCache, MemoryAccessTokenCache } from '../oauth/access-token-cache';
import { RedisAccessTokenCache } from '../oauth/redis-access-token-cache';
import { RedisSignInLimiter } from '../security/redis-sign-in-limiter';
import { defaultSignInRules, SignInLimiter, type SignInThrottle } from '../security/sign-in-limiter';
import { LeasedMembers } from './leased-members';
import { connectRedis } from './redis-connection';

/**
 * What several instances of the platform must agree on. Without `REDIS_URL`, each process keeps it
 * in memory (one instance, as `npm start` runs it); with it, in Redis. When Redis fails at a request:
 *
 * - API and token rate limits let the request through (`@fastify/rate-limit`'s `skipOnError`): they
 *   protect capacity, every request still needs its token or client secret, and an outage of Redis
 *   should not become an outage of the API.
 * - Sign-in fails closed (a 503 page, no password checked): uncounted attempts would let password
 *   guessing go unchecked.
 * - The upload cap falls back to each instance's own count; an Idempotency-Key's first request runs
 *   unmarked (only an instance starting meanwhile could then release its key early).
 * - The access-token cache is not trusted; each request reads the database. A revocation that
 *   cannot be announced answers 503 and revokes nothing, so the client retries.
 *
 * No request waits on Redis for more than `redisCommandTimeoutMs` (redis-connection.ts).
 */
export interface SharedState {
  signInLimiter: SignInThrottle;
  accessTokens: AccessTokenCache;
  uploadSlots: UploadSlots;
  runningClaims: RunningClaims;
  /** For `@fastify/rate-limit`: its Redis store, or none (its memory store). */
  rateLimitStore?: { redis: Redis; nameSpace: string; skipOnError: true };
  /** Throws when Redis does not answer (/readyz); absent without Redis. */
  reachable?(): Promise<void>;
  /** Whether Redis answers now (the metrics); absent without Redis. */
  connected?(): boolean;
  close(): Promise<void>;
}

export async function createSharedState(
  config: PlatformConfig,
  clock: () => number,
  log: FastifyBaseLogger,
): Promise<SharedState> {
  if (!config.redis) {
    return {
      signInLimiter: new SignInLimiter(defaultSignInRules, clock),
      accessTokens: new MemoryAccessTokenCache(),
      uploadSlots: new MemoryUploadSlots(config.uploads.perUser),
      runningClaims: new MemoryRunningClaims(),
      close: async () => {},
    };
  }
  const { url, keyPrefix: prefix } = config.redis;
  const connection = await connectRedis(url, log);
  try {
    const { commands } = connection;
    const accessTokens = await RedisAccessTokenCache.start(connection, prefix, log);
    const leases = new LeasedMembers(commands, log);
    return {
      signInLimiter: new RedisSignInLimiter(commands, prefix, defaultSignInRules, clock, log),
      accessTokens,
      uploadSlots: new RedisUploadSlots(commands, leases, prefix, config.uploads.perUser, log),
      runningClaims: new RedisRunningClaims(leases, prefix, log),
      rateLimitStore: { redis: commands, nameSpace: `${prefix}rate-limit:`, skipOnError: true },
      async reachable() {
        await commands.ping();
      },
      connected: () => commands.status === 'ready',
      async close() {
        accessTokens.close();
        leases.close();
        await connection.close();
      },
    };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
