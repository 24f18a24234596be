/**
 * Counts failed sign-ins per account and per address, and locks a key for a while once it has
 * failed too often. A locked key is refused before the password is checked, so a locked account
 * answers the same whether the password is right or wrong (A9).
 */
export interface LimiterRule {
  maxFailures: number;
  windowMs: number;
  lockMs: number;
}

interface Entry {
  failures: number;
  windowStart: number;
  lockedUntil: number;
}

export class SignInLimiter {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly rules: { account: LimiterRule; address: LimiterRule },
    private readonly clock: () => number,
  ) {}

  /** Milliseconds until the first of the keys unlocks; 0 when none is locked. */
  retryAfterMs(account: string, address: string): number {
    const now = this.clock();
    const waits = [this.key('account', account), this.key('address', address)].map(
      (k) => (this.entries.get(k)?.lockedUntil ?? 0) - now,
    );
    return Math.max(0, ...waits);
  }

  recordFailure(account: string, address: string): void {
    this.bump(this.key('account', account), this.rules.account);
    this.bump(this.key('address', address), this.rules.address);
    this.prune();
  }

  recordSuccess(account: string): void {
    this.entries.delete(this.key('account', account));
  }

  private key(kind: 'account' | 'address', value: string) {
    return `${kind}:${value.trim().toLowerCase()}`;
  }

  private bump(key: string, rule: LimiterRule) {
    const now = this.clock();
    let entry = this.entries.get(key);
    if (!entry || now - entry.windowStart > rule.windowMs) {
      entry = { failures: 0, windowStart: now, lockedUntil: entry?.lockedUntil ?? 0 };
      this.entries.set(key, entry);
    }
    entry.failures += 1;
    if (entry.failures >= rule.maxFailures) entry.lockedUntil = now + rule.lockMs;
  }

  /** Keeps memory bounded under a flood of distinct keys: drop entries that no longer matter. */
  private prune() {
    if (this.entries.size < 10_000) return;
    const now = this.clock();
    const longest = Math.max(this.rules.account.windowMs, this.rules.address.windowMs);
    for (const [key, entry] of this.entries) {
      if (entry.lockedUntil < now && now - entry.windowStart > longest) this.entries.delete(key);
    }
  }
}

const fifteenMinutes = 15 * 60 * 1000;
export const defaultSignInRules = {
  account: { maxFailures: 10, windowMs: fifteenMinutes, lockMs: fifteenMinutes },
  address: { maxFailures: 50, windowMs: fifteenMinutes, lockMs: fifteenMinutes },
};
