import type { Caller } from '../access/caller';

/**
 * Validated access tokens, so the API's hot path skips a database read per request. Every way a
 * token stops working goes through `forgetGrant` or `forgetToken`, awaited before the change is
 * answered: in memory (`MemoryAccessTokenCache`, one process) or told to every instance through
 * Redis (`RedisAccessTokenCache`), chosen at start (composition/shared-state.ts).
 */
export interface AccessTokenCache {
  get(tokenHash: string, now: number): Caller | undefined;
  /**
   * Read before the database lookup whose result is then `set`: when it changed meanwhile (the
   * cache may have missed a revocation), that result is not kept.
   */
  epoch(): number;
  set(
    tokenHash: string,
    caller: Caller,
    grantId: number,
    expiresAt: number,
    now: number,
    epoch: number,
  ): void;
  forgetGrant(grantId: number): void | Promise<void>;
  forgetToken(tokenHash: string): void | Promise<void>;
}

interface Entry {
  caller: Caller;
  grantId: number;
  /** The token's expiry, or a minute after caching, whichever comes first. */
  until: number;
}

const maxEntries = 10_000;
const maxAgeMs = 60_000;

/** One process's cache: revocation goes through `forget*` in this process, so it takes effect at once. */
export class MemoryAccessTokenCache implements AccessTokenCache {
  private readonly entries = new Map<string, Entry>();

  get(tokenHash: string, now: number): Caller | undefined {
    const entry = this.entries.get(tokenHash);
    if (!entry) return undefined;
    if (entry.until <= now) {
      this.entries.delete(tokenHash);
      return undefined;
    }
    return entry.caller;
  }

  /** Never changes: every revocation goes through this process, which nothing can miss. */
  epoch() {
    return 0;
  }

  set(tokenHash: string, caller: Caller, grantId: number, expiresAt: number, now: number, _epoch = 0) {
    if (this.entries.size >= maxEntries) this.entries.clear();
    this.entries.set(tokenHash, { caller, grantId, until: Math.min(expiresAt, now + maxAgeMs) });
  }

  forgetGrant(grantId: number) {
    for (const [hash, entry] of this.entries) if (entry.grantId === grantId) this.entries.delete(hash);
  }

  forgetToken(tokenHash: string) {
    this.entries.delete(tokenHash);
  }

  clear() {
    this.entries.clear();
  }
}
