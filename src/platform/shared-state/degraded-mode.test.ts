import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedisDegradedMode } from './degraded-mode';

/** What an operator reads while Redis comes and goes: a few lines, never one per request. */
let lines: string[];
let answers: boolean;
let mode: RedisDegradedMode;
beforeEach(() => {
  vi.useFakeTimers();
  lines = [];
  answers = false;
  const ping = () => (answers ? Promise.resolve('PONG') : Promise.reject(new Error('Connection is closed.')));
  mode = new RedisDegradedMode('redis://redis.internal:6379/', ping, {
    warn: (line: string) => lines.push(line),
  });
});
afterEach(() => {
  mode.close();
  vi.useRealTimers();
});

describe('Redis degraded mode', () => {
  it('says once that it starts, counts the requests each minute, and once that it ends', async () => {
    expect(mode.active).toBe(false);
    mode.failed(new Error('connect ECONNREFUSED 10.0.0.5:6379'), false);
    mode.failed(new Error('connect ECONNREFUSED 10.0.0.5:6379'));
    for (let i = 0; i < 4; i++) mode.skipped();
    expect(mode.active).toBe(true);
    expect(lines).toEqual([
      expect.stringMatching(
        /^Redis at redis:\/\/redis\.internal:6379\/ is unreachable \(connect ECONNREFUSED 10\.0\.0\.5:6379\); degraded mode until it answers: .*memory/,
      ),
    ]);

    await vi.advanceTimersByTimeAsync(60_000);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(
      'Redis at redis://redis.internal:6379/ is still unreachable: 5 requests served without it in the last minute',
    );

    answers = true;
    await vi.advanceTimersByTimeAsync(1000);
    expect(mode.active).toBe(false);
    expect(lines).toHaveLength(3);
    expect(lines[2]).toMatch(
      /^Redis at redis:\/\/redis\.internal:6379\/ answers again after 61 s; degraded mode is over \(5 requests served without it\)/,
    );

    // Nothing more while it answers; a new outage is a new start.
    await vi.advanceTimersByTimeAsync(120_000);
    expect(lines).toHaveLength(3);
    mode.failed(undefined, false);
    expect(lines[3]).toMatch(/is unreachable \(connection closed\)/);
  });
});
