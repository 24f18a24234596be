import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { RedisDegradedMode } from '../shared-state/degraded-mode';
import type { RedisConnection } from '../shared-state/redis-connection';
import { type AccessTokenCache, MemoryAccessTokenCache } from './access-token-cache';
import type { Caller } from '../access/caller';

type Revocation = { grant: number } | { token: string };

/** How often the subscription is checked, and how long one answered check lets the cache be trusted. */
const pingEveryMs = 200;
const trustMs = 800;
/**
 * A revoked grant or token is not cached again for this long. A revocation is announced before
 * its transaction commits (token-routes.ts); a lookup that read the row just before the commit
 * must not put it back. Far longer than any commit takes, and revocations are few.
 */
const tombstoneMs = 60_000;

/** Revocations kept to publish once Redis is back; past it the oldest go (tombstones last a minute anyway). */
const maxUnpublished = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const isRevocation = (value: unknown): value is Revocation =>
  typeof value === 'object' &&
  value !== null &&
  (Number.isInteger((value as { grant?: unknown }).grant) ||
    typeof (value as { token?: unknown }).token === 'string');

/**
 * The access-token cache of several instances: each keeps its own entries, and every revocation is
 * published on a Redis channel that every instance subscribes to, so a revoked token is refused by
 * all of them as soon as the revoke is answered.
 *
 * A subscription can drop without a word (a network fault), and a dropped one would miss
 * revocations. So an instance trusts its entries only while its subscription demonstrably works:
 * every 200 ms it pings Redis on the subscribed connection, and an answer lets it trust the cache
 * until 800 ms after that ping was sent. Redis sends a connection's messages in order, so a pong
 * comes after every revocation published before its ping arrived: a revocation answered at time t
 * is in every instance's hands, or that instance stops using its cache, by t + 800 ms. When trust
 * lapses (Redis gone, a slow machine), requests read the database, as without a cache, and the
 * entries are dropped, since revocations may have been missed meanwhile.
 *
 * A revocation that cannot be published (Redis away: degraded mode) still goes through: it waits
 * until every instance that lost Redis with this one has stopped trusting its cache (`trustMs`
 * after the failure: their last answered ping was sent before it), so that the revocation,
 * committed in the database once this returns, is refused everywhere when it is answered. It is
 * published once Redis answers again, for an instance that kept Redis while this one lost it (a
 * partition of one instance; that one may serve such a token from its cache until then, at most a
 * minute, `maxAgeMs` of access-token-cache.ts).
 */
export class RedisAccessTokenCache implements AccessTokenCache {
  private readonly local = new MemoryAccessTokenCache();
  /** `g:<grant id>` or `t:<token hash>` → until (performance.now()), oldest first. */
  private readonly tombstones = new Map<string, number>();
  private trustedUntil = 0;
  /** Counts the lapses: a lookup that started before one may have missed a revocation. */
  private lapses = 0;
  /** Revocations that Redis did not take, oldest first. */
  private unpublished: Revocation[] = [];
  private readonly timer: NodeJS.Timeout;

  private constructor(
    private readonly commands: Redis,
    private readonly subscriber: Redis,
    private readonly channel: string,
    private readonly degraded: RedisDegradedMode,
  ) {
    subscriber.on('message', (channel: string, text: string) => {
      if (channel !== this.channel) return;
      try {
        const revocation: unknown = JSON.parse(text);
        if (isRevocation(revocation)) this.apply(revocation);
      } catch {
        // Not ours: only this class publishes on the channel.
      }
    });
    // A reconnected subscription may have missed revocations while it was down.
    subscriber.on('close', () => this.lapse());
    this.timer = setInterval(() => this.checkSubscription(), pingEveryMs);
    this.timer.unref();
  }

  static async start(connection: RedisConnection, prefix: string) {
    const subscriber = await connection.subscriber();
    const channel = `${prefix}revocations`;
    const cache = new RedisAccessTokenCache(connection.commands, subscriber, channel, connection.degraded);
    await subscriber.subscribe(channel);
    return cache;
  }

  get(tokenHash: string, now: number): Caller | undefined {
    return this.trusted() ? this.local.get(tokenHash, now) : undefined;
  }

  epoch() {
    return this.lapses;
  }

  set(tokenHash: string, caller: Caller, grantId: number, expiresAt: number, now: number, epoch: number) {
    if (!this.trusted() || epoch !== this.lapses) return;
    if (this.buried(`g:${grantId}`) || this.buried(`t:${tokenHash}`)) return;
    this.local.set(tokenHash, caller, grantId, expiresAt, now, epoch);
  }

  forgetGrant(grantId: number) {
    return this.revoke({ grant: grantId });
  }

  forgetToken(tokenHash: string) {
    return this.revoke({ token: tokenHash });
  }

  close() {
    clearInterval(this.timer);
  }

  private async revoke(revocation: Revocation) {
    this.apply(revocation);
    // Tried even in degraded mode (it fails at once on a lost connection): Redis may be back before
    // this instance has noticed, and other instances may trust their caches again by then.
    try {
      await this.commands.publish(this.channel, JSON.stringify(revocation));
      return;
    } catch (error) {
      this.degraded.failed(error);
    }
    this.unpublished.push(revocation);
    if (this.unpublished.length > maxUnpublished) this.unpublished.shift();
    await sleep(trustMs);
  }

  /** Publishes the revocations Redis missed, once it answers again; those it fails on wait for the next time. */
  private publishMissed() {
    const missed = this.unpublished;
    this.unpublished = [];
    for (const revocation of missed)
      this.commands.publish(this.channel, JSON.stringify(revocation)).catch(() => {
        this.unpublished.push(revocation);
      });
  }

  private apply(revocation: Revocation) {
    const key = 'grant' in revocation ? `g:${revocation.grant}` : `t:${revocation.token}`;
    if ('grant' in revocation) this.local.forgetGrant(revocation.grant);
    else this.local.forgetToken(revocation.token);
    const now = performance.now();
    for (const [old, until] of this.tombstones) {
      if (until > now) break;
      this.tombstones.delete(old);
    }
    this.tombstones.delete(key);
    this.tombstones.set(key, now + tombstoneMs);
  }

  private buried(key: string) {
    const until = this.tombstones.get(key);
    return until !== undefined && until > performance.now();
  }

  private trusted() {
    return performance.now() <= this.trustedUntil;
  }

  private lapse() {
    this.trustedUntil = 0;
    this.lapses++;
    this.local.clear();
  }

  private checkSubscription() {
    const sentAt = performance.now();
    this.subscriber.ping().then(
      () => {
        // A lapse since the last answer: revocations may have gone by unseen.
        if (performance.now() > this.trustedUntil) this.lapse();
        this.trustedUntil = Math.max(this.trustedUntil, sentAt + trustMs);
        if (this.unpublished.length > 0) this.publishMissed();
      },
      // Trust runs out by itself; a subscription that goes silent starts degraded mode.
      (error: unknown) => this.degraded.failed(error, false),
    );
  }
}
