/**
 * Errors that mean a backend (PostgreSQL, the blob store) cannot be reached or did not answer in
 * time, rather than a fault of the request or of the platform: the client gets 503
 * `service_unavailable` with `Retry-After` and may simply try again (errors.ts). Redis has its own
 * ways (composition/shared-state.ts): its outages are answered without it where that is safe.
 */
export type Backend = 'database' | 'blob store';

/** Seconds a client is asked to wait: about a restart of PostgreSQL or of an S3 server. */
export const outageRetryAfterSeconds = 5;

/** Node's network errors: refused, reset, gone, unreachable, timed out. */
const networkCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * pg's own words for a connection that failed or went unanswered (it sets no code on these), and
 * PostgreSQL's SQLSTATEs for the same: class 08 (connection exception), 57014 (the statement
 * timeout cancelled the query), 57P01–57P03 (shutting down, crashed, starting), 53300 (too many
 * connections).
 */
const pgMessages = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Query read timeout',
  'Client has encountered a connection error and is not queryable',
];
const pgStates = /^(08...|57014|57P0[123]|53300)$/;

interface ErrorFields {
  name?: unknown;
  code?: unknown;
  message?: unknown;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number };
}

const fieldsOf = (error: unknown): ErrorFields =>
  typeof error === 'object' && error !== null ? (error as ErrorFields) : {};

function isDatabaseOutage(error: unknown): boolean {
  const { code, message } = fieldsOf(error);
  if (typeof code === 'string' && pgStates.test(code)) return true;
  return typeof message === 'string' && pgMessages.some((words) => message.startsWith(words));
}

/**
 * The S3 SDK's: its timeouts (TimeoutError), the server's own 5xx (S3's 503 SlowDown, 500
 * InternalError), and a disk that fails to read or write (EIO) for the file store.
 */
function isBlobStoreOutage(error: unknown): boolean {
  const { name, code, message, $metadata } = fieldsOf(error);
  if (name === 'TimeoutError' || code === 'EIO') return true;
  if ($metadata?.httpStatusCode !== undefined && $metadata.httpStatusCode >= 500) return true;
  return typeof message === 'string' && message.startsWith('socket hang up');
}

/**
 * Which backend an error says is unavailable, if any. A plain network error (ECONNREFUSED) names
 * no backend by itself: it is `unknown`, still an outage. Causes are followed, since a failed
 * cleanup may carry the first error as its cause (lib-storage's aborted upload).
 */
export function outageOf(error: unknown, depth = 0): Backend | 'unknown' | undefined {
  if (depth > 3 || typeof error !== 'object' || error === null) return undefined;
  if (isDatabaseOutage(error)) return 'database';
  if (isBlobStoreOutage(error)) return 'blob store';
  const { code, cause } = fieldsOf(error);
  if (typeof code === 'string' && networkCodes.has(code)) return 'unknown';
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = outageOf(inner, depth + 1);
      if (found) return found;
    }
  }
  return outageOf(cause, depth + 1);
}

/** At most one line per backend this often while it stays away, saying how many requests it cost. */
const outageLogEveryMs = 10_000;

interface OutageLogger {
  warn(message: string): void;
}

/**
 * Logs a backend's outage as a request meets it without a line per request (under load that
 * would be thousands a second): the first one at once, then one each `outageLogEveryMs` counting
 * the requests refused since. No stack trace: nothing in our code is wrong.
 */
export function outageLog(clock: () => number = Date.now) {
  const last = new Map<string, { at: number; since: number }>();
  return (log: OutageLogger, backend: Backend | 'unknown', error: unknown) => {
    const now = clock();
    const seen = last.get(backend);
    if (seen && now - seen.at < outageLogEveryMs) {
      seen.since++;
      return;
    }
    const name = backend === 'unknown' ? 'a backend' : `the ${backend}`;
    const more = seen?.since ? ` (${seen.since} more requests refused since the last line)` : '';
    log.warn(
      `${name} is unavailable: ${(error as Error | null)?.message ?? String(error)}; answered 503${more}`,
    );
    last.set(backend, { at: now, since: 0 });
  };
}
