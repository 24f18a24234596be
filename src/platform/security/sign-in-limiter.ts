/**
 * Slows down online password guessing without handing anyone a way to lock a person out (H6),
 * after OWASP's Authentication Cheat Sheet and "Slow Down Online Guessing Attacks with Device
 * Cookies".
 *
 * Failures from browsers not known for the account are counted per account (the email as typed,
 * whether anyone has it or not) and per address. Past a number of free failures, each further
 * failure makes that key wait before its next attempt, twice as long as the one before, up to a
 * ceiling. An attempt that must wait is refused before its password is checked, so the right and
 * a wrong password get the same answer (A9), and it adds no failure of its own.
 *
 * A browser with a valid device cookie for the account (it signed in to it before) is not held by
 * those counts: it has its own, and only once that runs out is it one more unknown browser. An
 * attacker's guesses then slow the attacker down, not the owner at their own browser.
 */
export interface ThrottleRule {
  /** Failures allowed before any wait. */
  freeFailures: number;
  /** The wait after the first failure past the free ones; each further failure doubles it. */
  firstDelayMs: number;
  maxDelayMs: number;
  /** A key's failures are forgotten this long after its last one. */
  forgetAfterMs: number;
}

export interface SignInRules {
  account: ThrottleRule;
  address: ThrottleRule;
  device: ThrottleRule;
}

const minute = 60_000;
const day = 24 * 60 * minute;

/**
 * The numbers (docs/decisions.md, "Sign-in throttling"). Per account: 5 failures, then waits of 1, 2, 4, 8
 * and then 15 minutes after each further one: at most about 100 guesses a day, while a person who
 * mistypes five times waits one minute. Per address: 20, since an office or a phone network puts
 * many people behind one. A known browser: 10 failures before it loses its pass.
 */
export const defaultSignInRules: SignInRules = {
  account: { freeFailures: 5, firstDelayMs: minute, maxDelayMs: 15 * minute, forgetAfterMs: day },
  address: { freeFailures: 20, firstDelayMs: minute, maxDelayMs: 15 * minute, forgetAfterMs: day },
  device: { freeFailures: 10, firstDelayMs: minute, maxDelayMs: 15 * minute, forgetAfterMs: day },
};

/** Keys kept per counter; past it the one whose last failure is oldest goes, so memory stays bounded. */
const maxKeys = 100_000;

interface Failures {
  count: number;
  lastAt: number;
}

class FailureCounter {
  // In order of last failure, oldest first: each failure sets a new entry.
  private readonly entries = new Map<string, Failures>();

  constructor(
    private readonly rule: ThrottleRule,
    private readonly clock: () => number,
  ) {}

  waitMs(key: string): number {
    const failures = this.current(key);
    if (!failures || failures.count < this.rule.freeFailures) return 0;
    const doublings = failures.count - this.rule.freeFailures;
    const delay = Math.min(this.rule.maxDelayMs, this.rule.firstDelayMs * 2 ** doublings);
    return Math.max(0, failures.lastAt + delay - this.clock());
  }

  /** Counts a failure now; answers a function that takes it back. */
  charge(key: string): () => void {
    const before = this.current(key);
    const charged = { count: (before?.count ?? 0) + 1, lastAt: this.clock() };
    this.entries.delete(key);
    this.entries.set(key, charged);
    if (this.entries.size > maxKeys) this.entries.delete(this.entries.keys().next().value!);
    return () => {
      const latest = this.entries.get(key);
      if (latest === charged) {
        // Nothing was charged since: back to exactly what it was.
        if (before) this.entries.set(key, before);
        else this.entries.delete(key);
      } else if (latest) {
        this.entries.set(key, { ...latest, count: Math.max(0, latest.count - 1) });
      }
    };
  }

  forget(key: string) {
    this.entries.delete(key);
  }

  private current(key: string): Failures | undefined {
    const failures = this.entries.get(key);
    if (failures && this.clock() - failures.lastAt > this.rule.forgetAfterMs) {
      this.entries.delete(key);
      return undefined;
    }
    return failures;
  }
}

export interface SignInAttempt {
  /** The email as typed. */
  account: string;
  address: string;
  /** The id of the browser's device cookie, when it has a valid one naming this account. */
  device?: string;
}

/**
 * One attempt's standing. An attempt that may go on counts as a failure from that moment until it
 * succeeds: guesses sent in parallel are then held like guesses sent one after another.
 */
export interface SignInTurn {
  /** Milliseconds before this attempt may be checked; 0 when it may go on now. */
  waitMs: number;
  succeeded(): void | Promise<void>;
}

/**
 * The rules above, kept in this process's memory (`SignInLimiter`) or, for several instances, in
 * Redis (`RedisSignInLimiter`), chosen at start (composition/shared-state.ts).
 */
export interface SignInThrottle {
  begin(attempt: SignInAttempt): SignInTurn | Promise<SignInTurn>;
}

/** In memory: one process's counts (at most `maxKeys` keys per counter); a restart forgets them. */
export class SignInLimiter implements SignInThrottle {
  private readonly accounts: FailureCounter;
  private readonly addresses: FailureCounter;
  private readonly devices: FailureCounter;

  constructor(rules: SignInRules, clock: () => number) {
    this.accounts = new FailureCounter(rules.account, clock);
    this.addresses = new FailureCounter(rules.address, clock);
    this.devices = new FailureCounter(rules.device, clock);
  }

  begin(attempt: SignInAttempt): SignInTurn {
    const device = attempt.device;
    if (device !== undefined && this.devices.waitMs(device) === 0) {
      this.devices.charge(device);
      return { waitMs: 0, succeeded: () => this.devices.forget(device) };
    }
    const account = attempt.account.trim().toLowerCase();
    const waitMs = Math.max(this.accounts.waitMs(account), this.addresses.waitMs(attempt.address));
    if (waitMs > 0) return { waitMs, succeeded: () => {} };
    this.accounts.charge(account);
    const takeBackFromAddress = this.addresses.charge(attempt.address);
    return {
      waitMs: 0,
      // Only someone with the password clears the account. An address only gets this attempt
      // back: a success never clears it, or an attacker signing in to an account of their own
      // would reset it between guesses.
      succeeded: () => {
        this.accounts.forget(account);
        takeBackFromAddress();
      },
    };
  }
}
