import { describe, expect, it } from 'vitest';
import { restartBackoff } from './restart-backoff';

describe('restartBackoff', () => {
  const policy = { firstDelayMs: 1000, maxDelayMs: 30_000, resetAfterMs: 60_000 };

  it('doubles the wait while the program keeps stopping soon after its start, up to the cap', () => {
    const backoff = restartBackoff(policy);
    const waits = Array.from({ length: 8 }, () => backoff.delayAfter(500));
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 30_000, 30_000, 30_000]);
  });

  it('starts again from the first wait once a run has lasted long enough', () => {
    const backoff = restartBackoff(policy);
    for (let i = 0; i < 5; i++) backoff.delayAfter(500);
    expect(backoff.delayAfter(60_000)).toBe(1000);
    expect(backoff.delayAfter(500)).toBe(2000);
  });
});
