import pino from 'pino';

/**
 * Standard output for the log, buffered by pino's own destination (sonic-boom): what was logged goes
 * out once 8 KB are waiting, and at least every `flushMs`; pino writes what still waits
 * synchronously when the process exits (a crash included).
 *
 * Why buffered: pino's default output writes each line as it comes, one write per request line,
 * which cost an API read more than the line itself (docs/benchmarks.md, "Metrics and the request
 * line"). A line now reaches the terminal or the log collector up to `flushMs` later.
 */
export function bufferedStdout(flushMs = 200) {
  return pino.destination({ dest: 1, sync: false, minLength: 8 * 1024, periodicFlush: flushMs });
}
