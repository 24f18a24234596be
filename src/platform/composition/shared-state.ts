import { MemoryLocker } from '@tus/server';
import type { Locker } from '@tus/utils';
import { RedisUploadLocker } from '../assets/resumable/redis-upload-locker';
import type { FastifyBaseLogger } from 'fastify';
import type { PlatformConfig } from '../config/env';
import { MemoryUploadSlots, type UploadSlots } from '../assets/upload-slots';
import { RedisUploadSlots } from '../assets/redis-upload-slots';
import { RedisRunningClaims } from '../shared-state/redis-running-claims';
import { MemoryRunningClaims, type RunningClaims } from '../shared-state/running-claims';
import { type AccessTokenCache, MemoryAccessTokenCache } from '../oauth/access-token-cache';
import { RedisAccessTokenCache } from '../oauth/redis-access-token-cache';
import { RedisSignInLimiter } from '../security/redis-sign-in-limiter';
import { defaultSignInRules, SignInLimiter, type SignInThrottle } from '../security/sign-in-limiter';
import { LeasedMembers } from '../shared-state/leased-members';
import { connectRedis } from '../shared-state/redis-connection';
import type { SharedRateLimitStore } from '../plugins/rate-limits';

/**
 * What several instances of the platform must agree on. Without `REDIS_URL`, each process keeps it
 * in memory (one instance, as `npm start` runs it); with it, in Redis. When Redis fails, the
 * instance goes into degraded mode (degraded-mode.ts: one warning when it starts, one when it ends,
 * a count each minute) and keeps each of these in its own memory, with the classes used without
 * Redis, until Redis answers again:
 *
 * - Sign-in attempts, API and token rate limits, and the upload cap are counted per instance: each
 *   instance then grants its own budget, bounded, and passwords are still checked.
 * - An Idempotency-Key's first request runs unmarked, and claims in progress count as running
 *   (a retry answers 409 rather than risk a second asset).
 * - The access-token cache is not trusted; each request reads the database. A revocation is
 *   committed in the database and answered once every instance has stopped trusting its cache.
 *
 * No request waits on Redis for more than `redisCommandTimeoutMs` (redis-connection.ts), and once
 * degraded mode is on, none waits on it at all.
 */
export interface SharedState {
  signInLimiter: SignInThrottle;
  accessTokens: AccessTokenCache;
  uploadSlots: UploadSlots;
  runningClaims: RunningClaims;
  /** Who writes a resumable upload now: in memory, or in Redis so that instances take turns. */
  uploadLocker: Locker;
  /** For `@fastify/rate-limit`: its Redis store (its memory store in degraded mode), or none (its memory store). */
  rateLimitStore?: SharedRateLimitStore;
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
      uploadLocker: new MemoryLocker(),
      close: async () => {},
    };
  }
  const { url, keyPrefix: prefix } = config.redis;
  const connection = await connectRedis(url, log);
  try {
    const { commands, degraded } = connection;
    const accessTokens = await RedisAccessTokenCache.start(connection, prefix);
    const leases = new LeasedMembers(commands, degraded);
    return {
      signInLimiter: new RedisSignInLimiter(commands, prefix, defaultSignInRules, clock, degraded),
      accessTokens,
      uploadSlots: new RedisUploadSlots(commands, leases, prefix, config.uploads.perUser, degraded),
      runningClaims: new RedisRunningClaims(leases, prefix, degraded),
      uploadLocker: new RedisUploadLocker(commands, prefix),
      rateLimitStore: { redis: commands, nameSpace: `${prefix}rate-limit:`, degraded },
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
