import { describe, expect, it } from 'vitest';
import { formatSize, formatSpeed, formatTimeLeft, formatWhen } from './format';

describe('numbers as people read them', () => {
  it('sizes in the unit that suits them, not "40961 KB"', () => {
    expect(formatSize(40961 * 1024)).toBe('42 MB');
    expect(formatSize(1_500_000)).toBe('1.5 MB');
    expect(formatSize(532)).toBe('532 bytes');
    expect(formatSize(2_400)).toBe('2.4 kB');
    expect(formatSize(3_200_000_000)).toBe('3.2 GB');
  });

  it('speeds per second', () => {
    expect(formatSpeed(850_000)).toBe('850 kB/s');
    expect(formatSpeed(2_500_000)).toBe('2.5 MB/s');
  });

  it('time left, rounded as an estimate should be', () => {
    expect(formatTimeLeft(3)).toBe('a few seconds left');
    expect(formatTimeLeft(37)).toBe('about 40 seconds left');
    expect(formatTimeLeft(150)).toBe('about 3 minutes left');
    expect(formatTimeLeft(5400)).toBe('about 1.5 hours left');
  });

  it('upload times as a file manager says them', () => {
    const now = new Date(2026, 10, 27, 16, 0);
    const at = (...parts: [number, number, number, number, number]) => new Date(...parts).toISOString();
    expect(formatWhen(at(2026, 10, 27, 14, 32), now)).toBe('today 2:32 PM');
    expect(formatWhen(at(2026, 10, 26, 9, 5), now)).toBe('yesterday 9:05 AM');
    expect(formatWhen(at(2026, 2, 12, 14, 32), now)).toBe('Mar 12 2:32 PM');
    expect(formatWhen(at(2025, 2, 12, 14, 32), now)).toBe('Mar 12, 2025');
    expect(formatWhen('not a date', now)).toBeUndefined();
  });
});
