import { writeSync } from 'node:fs';

/**
 * Standard output for the log, written in batches: what was logged goes out every `flushMs` or
 * once `maxBytes` are waiting, and whatever waits when the process exits is written before it does.
 *
 * Why: pino's own output writes each line as it comes, one write (through the thread pool) per
 * request line, which cost an API read more than the line itself (docs/benchmarks.md, "Metrics and
 * the request line"). A line now reaches the terminal or the log collector up to `flushMs` later.
 */
export function batchedStdout(flushMs = 200, maxBytes = 16 * 1024) {
  let pending = '';
  const flush = () => {
    if (pending === '') return;
    const text = pending;
    pending = '';
    process.stdout.write(text);
  };
  // On exit (a crash included) the event loop is gone: a synchronous write is the only one that lands.
  const flushAtExit = () => {
    if (pending !== '') writeSync(process.stdout.fd, pending);
    pending = '';
  };
  const timer = setInterval(flush, flushMs).unref();
  process.once('exit', flushAtExit);
  return {
    write(line: string) {
      pending += line;
      if (pending.length >= maxBytes) flush();
    },
    close() {
      clearInterval(timer);
      process.removeListener('exit', flushAtExit);
      flush();
    },
  };
}
