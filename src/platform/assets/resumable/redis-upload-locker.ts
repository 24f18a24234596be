import { randomBytes } from 'node:crypto';
import type { Lock, Locker, RequestRelease } from '@tus/utils';
import type { Redis } from 'ioredis';

/** Held this long without renewal, so that an instance that dies lets go of its uploads soon. */
const leaseMs = 15_000;
/** How long a second request for the same upload waits for the lock before it gives up (423). */
const defaultAcquireTimeoutMs = 10_000;
const pollMs = 100;

/** Deletes the lock only if it is still ours (a lease that ran out may be another's now). */
const releaseScript = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const renewScript = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end`;

/** What tus answers when the lock stays taken: 423 Locked, as the issue asks of a second instance. */
export const uploadLocked = {
  status_code: 423,
  body: 'This upload is being written by another request; try again in a moment.\n',
};

/**
 * @tus/server's Locker over our Redis, so that two instances never write one upload at once (tus
 * ships only an in-memory locker). A lease, renewed while held: a PATCH on another instance waits
 * for it up to `acquireTimeoutMs`, then answers 423. Unlike the memory locker it cannot ask a
 * holder on another instance to let go early; a cut connection lets go when its request ends.
 */
export class RedisUploadLocker implements Locker {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly acquireTimeoutMs = defaultAcquireTimeoutMs,
  ) {}

  newLock(id: string): Lock {
    const key = `${this.prefix}tus-lock:${id}`;
    const token = randomBytes(16).toString('hex');
    const redis = this.redis;
    const acquireTimeoutMs = this.acquireTimeoutMs;
    let renewal: NodeJS.Timeout | undefined;
    return {
      async lock(signal: AbortSignal, _requestRelease: RequestRelease) {
        const deadline = Date.now() + acquireTimeoutMs;
        for (;;) {
          if (await redis.set(key, token, 'PX', leaseMs, 'NX')) break;
          if (signal.aborted || Date.now() > deadline) throw uploadLocked;
          await new Promise((resolve) => setTimeout(resolve, pollMs));
        }
        renewal = setInterval(() => {
          redis.eval(renewScript, 1, key, token, String(leaseMs)).catch(() => {});
        }, leaseMs / 3);
        renewal.unref();
      },
      async unlock() {
        clearInterval(renewal);
        await redis.eval(releaseScript, 1, key, token);
      },
    };
  }
}
