/**
 * Numbers as people read them, in the browser's language: "40 MB", not "40961 KB"; "850 kB/s"; "about 2
 * minutes left". Intl does the wording and the units; only the choice of unit is ours.
 */

const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const;

/** 1 000-based, as operating systems show file sizes in their file managers (and as "MB" reads). */
function scaled(bytes: number): { value: number; unit: (typeof units)[number] } {
  let value = bytes;
  let index = 0;
  while (value >= 1000 && index < units.length - 1) {
    value /= 1000;
    index += 1;
  }
  return { value, unit: units[index]! };
}

export function formatSize(bytes: number): string {
  const { value, unit } = scaled(bytes);
  return new Intl.NumberFormat(undefined, {
    style: 'unit',
    unit,
    unitDisplay: unit === 'byte' ? 'long' : 'short',
    maximumFractionDigits: value < 10 && unit !== 'byte' ? 1 : 0,
  }).format(value);
}

export function formatSpeed(bytesPerSecond: number): string {
  const { value, unit } = scaled(bytesPerSecond);
  return new Intl.NumberFormat(undefined, {
    style: 'unit',
    unit: `${unit}-per-second`,
    unitDisplay: 'short',
    maximumFractionDigits: value < 10 && unit !== 'byte' ? 1 : 0,
  }).format(value);
}

/** "about 40 seconds left", "about 3 minutes left": rounded, because an estimate is only that. */
export function formatTimeLeft(seconds: number): string {
  const words = (value: number, unit: 'second' | 'minute' | 'hour') =>
    new Intl.NumberFormat(undefined, { style: 'unit', unit, unitDisplay: 'long' }).format(value);
  if (seconds < 5) return 'a few seconds left';
  if (seconds < 60) return `about ${words(Math.ceil(seconds / 5) * 5, 'second')} left`;
  if (seconds < 3600) return `about ${words(Math.round(seconds / 60), 'minute')} left`;
  return `about ${words(Math.round(seconds / 360) / 10, 'hour')} left`;
}

export function formatDate(iso: string): string | undefined {
  const date = new Date(iso);
  return Number.isNaN(date.getTime())
    ? undefined
    : new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(date);
}

/**
 * When something happened, as a file manager says it: "today 14:32", "yesterday 09:05", "12 Mar
 * 14:32" this year, "12 Mar 2025" before. Local time, in the browser's language.
 */
export function formatWhen(iso: string, now = new Date()): string | undefined {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return undefined;
  const time = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' }).format(date);
  const startOfDay = (d: Date) => new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
  const daysAgo = Math.round((startOfDay(now) - startOfDay(date)) / 86_400_000);
  if (daysAgo === 0 || daysAgo === 1)
    return `${new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' }).format(-daysAgo, 'day')} ${time}`;
  if (date.getFullYear() === now.getFullYear())
    return `${new Intl.DateTimeFormat(undefined, { day: 'numeric', month: 'short' }).format(date)} ${time}`;
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium' }).format(date);
}

/** "3 hours ago", "yesterday", "2 days ago": how long ago, in the browser's language. */
export function formatRelative(iso: string, now = Date.now()): string | undefined {
  const then = new Date(iso).getTime();
  if (Number.isNaN(then)) return undefined;
  const seconds = Math.round((then - now) / 1000);
  const words = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });
  const steps: [number, Intl.RelativeTimeFormatUnit][] = [
    [60, 'second'],
    [60, 'minute'],
    [24, 'hour'],
    [7, 'day'],
    [4.35, 'week'],
    [12, 'month'],
  ];
  let value = seconds;
  for (const [size, unit] of steps) {
    if (Math.abs(value) < size) return words.format(Math.round(value), unit);
    value /= size;
  }
  return words.format(Math.round(value), 'year');
}
