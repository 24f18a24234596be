import type { Caller } from './bearer';

interface Entry {
  caller: Caller;
  grantId: number;
  /** The token's expiry, or a minute after caching, whichever comes first. */
  until: number;
}

const maxEntries = 10_000;
const maxAgeMs = 60_000;

/**
 * Validated access tokens, so the API's hot path skips a database read per request. Every way a
 * token stops working goes through `forgetGrant` or `forgetToken` in this process, so revocation
 * still takes effect at once. (Several platform processes on one database would need a shared
 * invalidation; the embedded platform is one process.)
 */
export class AccessTokenCache {
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

  set(tokenHash: string, caller: Caller, grantId: number, expiresAt: number, now: number) {
    if (this.entries.size >= maxEntries) this.entries.clear();
    this.entries.set(tokenHash, { caller, grantId, until: Math.min(expiresAt, now + maxAgeMs) });
  }

  forgetGrant(grantId: number) {
    for (const [hash, entry] of this.entries) if (entry.grantId === grantId) this.entries.delete(hash);
  }

  forgetToken(tokenHash: string) {
    this.entries.delete(tokenHash);
  }
}
