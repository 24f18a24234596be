import { LogController, type FastifyBaseLogger, type FastifyReply, type FastifyRequest } from 'fastify';

/** Told of every finished request, logged or not (the metrics: metrics.ts). */
export type RequestCompleted = (method: string, route: string, status: number, seconds: number) => void;

/** The route of a request that matched none (a 404), as a label: never the raw path (cardinality). */
export const unmatchedRoute = '(unmatched)';

/**
 * The access log: one compact `info` line per completed request (method, route pattern, status,
 * ms, the user's id when a token named one; the request id from the per-request logger), never a
 * header, a token or a query string. A request that fails on our side is logged at `error` instead
 * (here and by the error handler).
 *
 * Why not Fastify's default, two lines per request ("incoming" and "completed", each with the whole
 * request): every line is serializing on the event loop plus a write from the thread pool. This one
 * line and the metrics together stay within 5 µs of CPU per API request (docs/benchmarks.md,
 * "Metrics and the request line").
 */
export class RequestLog extends LogController {
  readonly #completed: RequestCompleted | undefined;

  constructor(completed?: RequestCompleted) {
    super();
    this.#completed = completed;
  }

  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const logged = !this.isLogDisabled(request) && levelEnabled(reply.log, error ? 'error' : 'info');
    // At `warn` without metrics there is nothing to do: not even the route to look up.
    if (!logged && this.#completed === undefined) return;
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    this.#completed?.(request.method, route ?? unmatchedRoute, status, ms / 1000);
    if (!logged) return;
    const line = {
      method: request.method,
      route,
      // Where no route matched, the path (never the query) says what was asked for.
      ...(route === undefined ? { path: pathOf(request.url) } : {}),
      status,
      ms: Math.round(ms * 10) / 10,
      userId: request.caller?.userId,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}

/** Whether `level` is written: pino says; a logger that cannot say is asked to log (and may drop it). */
function levelEnabled(
  log: FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean },
  level: string,
) {
  return log.isLevelEnabled === undefined || log.isLevelEnabled(level);
}

function pathOf(url: string) {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
