/**
 * Work running on some instance: Idempotency-Keys whose first request is running
 * (assets/idempotency.ts) and PDF thumbnails queued or being made (`thumbnail:<id>`,
 * media/pending-thumbnails.ts). At start an instance releases the keys left in progress by a stop
 * or crash and takes up the thumbnails left pending; with several instances, only those that no
 * instance is still running: in this process's memory (`MemoryRunningClaims`: at its start nothing
 * runs) or in Redis (`RedisRunningClaims`), chosen at start (composition/shared-state.ts).
 */
export interface RunningClaims {
  /** Marks the claim as running here until `release` is called; never fails the request. */
  hold(name: string): Promise<{ release(): void }> | { release(): void };
  /** Of these claims, the ones that some instance is running. */
  running(names: string[]): Promise<Set<string>> | Set<string>;
}

export const claimName = (userId: number, key: string) => `${userId}:${key}`;

/** One process: its own requests. */
export class MemoryRunningClaims implements RunningClaims {
  private readonly held = new Set<string>();

  hold(name: string) {
    this.held.add(name);
    return { release: () => this.held.delete(name) };
  }

  running(names: string[]) {
    return new Set(names.filter((name) => this.held.has(name)));
  }
}
