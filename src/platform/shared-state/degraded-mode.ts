import type { FastifyBaseLogger } from 'fastify';

/** How often a Redis that failed is asked again whether it answers. */
const probeEveryMs = 1000;
/** How often, while Redis stays away, a line says how many requests went without it. */
const countEveryMs = 60_000;

/** What one instance does while Redis is away; said once, in the line that starts it. */
const whatChanges =
  'every access token is checked in the database; revocations are committed in the database and ' +
  'told to the other instances once Redis is back; sign-in attempts, token and API rate limits and ' +
  'the per-user upload cap are counted in this instance’s memory only (each instance its own ' +
  'budget, bounded: at most 100000 keys per sign-in counter and 5000 addresses per rate limit)';

const messageOf = (error: unknown) =>
  error instanceof Error ? error.message : error === undefined ? 'connection closed' : String(error);

/**
 * Whether this instance is running without Redis, and its log. The first failure of Redis (a
 * request's command, a lost connection, an unanswered ping) starts degraded mode with one warning;
 * while it lasts, the parts that keep shared state go straight to their own per-instance memory
 * (the same classes the embedded default uses), so that no request waits on a Redis known to be
 * away, and a line each minute counts the requests served so. Every second Redis is pinged; its
 * first answer ends degraded mode with one more warning, without a restart. No stack traces:
 * nothing in our code is wrong.
 */
export class RedisDegradedMode {
  private since: number | undefined;
  private served = 0;
  private servedInMinute = 0;
  private probing = false;
  private probeTimer: NodeJS.Timeout | undefined;
  private countTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly redisName: string,
    private readonly ping: () => Promise<unknown>,
    private readonly log: Pick<FastifyBaseLogger, 'warn'>,
    private readonly clock: () => number = Date.now,
  ) {}

  /** True while Redis is taken to be away: shared state is kept in this instance's memory. */
  get active() {
    return this.since !== undefined;
  }

  /**
   * Redis failed. `request`: a request was then served without it (counted), rather than a
   * connection or a background task failing.
   */
  failed(error: unknown, request = true) {
    if (request) this.skipped();
    if (this.since !== undefined) return;
    this.since = this.clock();
    this.log.warn(
      `Redis at ${this.redisName} is unreachable (${messageOf(error)}); degraded mode until it answers: ${whatChanges}`,
    );
    this.probeTimer = setInterval(() => this.probe(), probeEveryMs);
    this.probeTimer.unref();
    this.countTimer = setInterval(() => this.sayCount(), countEveryMs);
    this.countTimer.unref();
  }

  /** A request served in memory without asking Redis, since degraded mode is on. */
  skipped() {
    this.served++;
    this.servedInMinute++;
  }

  close() {
    this.stopTimers();
  }

  private probe() {
    if (this.probing) return;
    this.probing = true;
    this.ping().then(
      () => {
        this.probing = false;
        this.end();
      },
      () => {
        this.probing = false;
      },
    );
  }

  private end() {
    if (this.since === undefined) return;
    const seconds = Math.round((this.clock() - this.since) / 1000);
    this.log.warn(
      `Redis at ${this.redisName} answers again after ${seconds} s; degraded mode is over (${this.served} requests served without it): shared limits and the token cache are in use again`,
    );
    this.since = undefined;
    this.served = 0;
    this.servedInMinute = 0;
    this.stopTimers();
  }

  private sayCount() {
    this.log.warn(
      `Redis at ${this.redisName} is still unreachable: ${this.servedInMinute} requests served without it in the last minute`,
    );
    this.servedInMinute = 0;
  }

  private stopTimers() {
    clearInterval(this.probeTimer);
    clearInterval(this.countTimer);
    this.probeTimer = undefined;
    this.countTimer = undefined;
  }
}
