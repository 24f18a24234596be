import type { FastifyBaseLogger } from 'fastify';
import type { LeasedMembers } from '../shared-state/leased-members';
import type { RunningClaims } from './running-claims';

/**
 * Claims running on any instance, as leased members of one Redis sorted set: a claim whose
 * instance died stops counting a lease later, and the next start releases it (until then its
 * retries answer 409, as they would while it ran).
 */
export class RedisRunningClaims implements RunningClaims {
  private readonly key: string;

  constructor(
    private readonly leases: LeasedMembers,
    prefix: string,
    private readonly log: Pick<FastifyBaseLogger, 'error'>,
  ) {
    this.key = `${prefix}running-claims`;
  }

  /**
   * When Redis fails the request goes on unmarked: only an instance starting while it runs would
   * then release its key early, and only a retry in that window could make a second asset.
   */
  async hold(name: string) {
    try {
      await this.leases.add(this.key, name);
    } catch (error) {
      this.log.error({ err: error }, 'Idempotency-Key: Redis failed; the claim is not marked as running');
    }
    return { release: () => this.leases.remove(this.key, name) };
  }

  running(names: string[]) {
    return this.leases.alive(this.key, names);
  }
}
