import type { RedisDegradedMode } from './degraded-mode';
import type { LeasedMembers } from './leased-members';
import type { RunningClaims } from './running-claims';

/**
 * Claims running on any instance, as leased members of one Redis sorted set: a claim whose
 * instance died or restarted stops counting a lease (30 s) later; until then its retries answer
 * 409, as they would while it ran, and from then on the next retry takes the key over.
 */
export class RedisRunningClaims implements RunningClaims {
  private readonly key: string;

  constructor(
    private readonly leases: LeasedMembers,
    prefix: string,
    private readonly degraded: RedisDegradedMode,
  ) {
    this.key = `${prefix}running-claims`;
  }

  /**
   * When Redis fails the request goes on unmarked: a retry may then take its key over, and an
   * instance starting may release it, either of which makes this request answer 409 at its end
   * (the claim is fenced: one key never makes two assets).
   */
  async hold(name: string) {
    if (this.degraded.active) {
      this.degraded.skipped();
      return { release: () => {} };
    }
    try {
      await this.leases.add(this.key, name);
    } catch (error) {
      this.degraded.failed(error);
    }
    return { release: () => this.leases.remove(this.key, name) };
  }

  /** When Redis fails, every claim counts as running: a retry then answers 409 rather than risk a second asset. */
  async running(names: string[]) {
    if (this.degraded.active) return new Set(names);
    try {
      return await this.leases.alive(this.key, names);
    } catch (error) {
      this.degraded.failed(error);
      return new Set(names);
    }
  }
}
