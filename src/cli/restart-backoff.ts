/** How a supervisor waits before starting again a program that stopped by itself. */
export interface RestartPolicy {
  /** The wait after the first stop, doubled at each stop that follows a short run. */
  firstDelayMs: number;
  /** The longest wait: a program that cannot start is tried again this often, for ever. */
  maxDelayMs: number;
  /** A run this long counts as a good one: the next stop waits `firstDelayMs` again. */
  resetAfterMs: number;
}

export const defaultRestartPolicy: RestartPolicy = {
  firstDelayMs: 1000,
  maxDelayMs: 30_000,
  resetAfterMs: 60_000,
};

/**
 * Exponential backoff for restarts: 1 s, 2 s, 4 s … up to the cap while the program keeps stopping
 * soon after its start (a bad configuration, a backend it cannot reach), so that it neither spins
 * nor floods the log; back to the first delay once a run has lasted `resetAfterMs`.
 */
export function restartBackoff(policy: RestartPolicy = defaultRestartPolicy) {
  let shortRuns = 0;
  return {
    /** The wait before the next start of a program that stopped after running `ranMs`. */
    delayAfter(ranMs: number): number {
      if (ranMs >= policy.resetAfterMs) shortRuns = 0;
      const delay = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** shortRuns);
      shortRuns++;
      return delay;
    },
  };
}
