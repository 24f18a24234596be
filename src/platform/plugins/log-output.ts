import pino from 'pino';

/** What a platform's logger writes to, and what its stop flushes. */
export interface LogOutput {
  write(line: string): void;
  /** Hands on what waits now (a stop); `written` is called once it is written. */
  flush(written?: () => void): void;
  /**
   * The platform's stop: hands on what waits and stops the batch timer. Lines written after it (the
   * stop's own) are handed on at once, and still written at the process's exit.
   */
  close(): void;
}

/** The outputs of this process, each written out once more when the process exits. */
const atExit = new Set<() => void>();
let exitListener = false;

/**
 * Standard output for the log (or `dest`: a file descriptor or a path), in batches: lines are
 * collected here and handed to pino's own destination (sonic-boom) once `batchBytes` characters
 * are waiting, and at least every `flushMs`; what still waits when the process exits (a crash
 * included) is written before it does.
 *
 * The destination writes synchronously, a batch at a time. Written from the thread pool, a batch
 * still on its way when the process exited landed after the last lines, which the exit wrote at
 * once: the log came out of order (seen under load, 2 runs in 3). A synchronous write of 16 KB is
 * one system call per batch.
 *
 * Why the collecting here rather than sonic-boom's own `minLength`: sonic-boom measures its whole
 * waiting buffer in UTF-8 bytes at every line and starts a thread-pool write as soon as the last
 * one ends, which cost 5–7 µs of CPU per request line on the 2-core machine; handed 16 KB at a
 * time it costs about 0.5 µs a line (docs/benchmarks.md, "Metrics and the request line"). A line
 * reaches the terminal or the log collector up to `flushMs` later.
 */
export function bufferedStdout({
  flushMs = 200,
  batchBytes = 16 * 1024,
  dest = 1 as number | string,
} = {}): LogOutput {
  const destination = pino.destination({ dest, sync: true });
  let waiting = '';
  const handOn = () => {
    if (waiting === '') return;
    destination.write(waiting);
    waiting = '';
  };
  const writeAtExit = () => {
    // A closed output (its reader gone) must not turn the exit into a crash of its own.
    try {
      handOn();
      destination.flushSync();
    } catch {
      // Nothing left to write to.
    }
  };
  const timer = setInterval(handOn, flushMs).unref();
  let closed = false;
  atExit.add(writeAtExit);
  if (!exitListener) {
    exitListener = true;
    process.once('exit', () => atExit.forEach((write) => write()));
  }
  return {
    write(line) {
      waiting += line;
      if (closed || waiting.length >= batchBytes) handOn();
    },
    flush(written) {
      handOn();
      if (written) destination.flush(() => written());
    },
    close() {
      closed = true;
      clearInterval(timer);
      handOn();
    },
  };
}
