import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * The access log: one `debug` line per completed request (method, path without the query, status,
 * time), so it is off at the default `info` level; `LOG_LEVEL=debug` turns it on. Errors are logged
 * whatever the level: a request that fails on our side at `error` (here and by the error handler).
 *
 * Why not Fastify's default, two `info` lines per request ("incoming" and "completed"): logging is
 * serializing on the event loop plus writes from the thread pool, and even this one line, measured
 * against the same platform without it, cost an API read 10–15% of its throughput (S4, S5 of
 * performance.md): most of the margin of their targets. The trade-off: a platform left at `info`
 * keeps no record of successful requests; run it at `debug`, or keep a reverse proxy's access log.
 */
export class RequestLog extends LogController {
  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    if (this.isLogDisabled(request)) return;
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    } else {
      reply.log.debug({ req: request, res: reply, responseTime: reply.elapsedTime }, 'request completed');
    }
  }
}
