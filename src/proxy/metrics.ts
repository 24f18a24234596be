import { createServer, type Server } from 'node:http';
import { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/**
 * The proxy's Prometheus metrics (docs/deploy.md, "Metrics"): requests by route pattern and status,
 * their durations, and the process's own series, in a registry of its own (never prom-client's
 * global one), served on PROXY_METRICS_PORT only, never on the web app's port.
 */
export interface ProxyMetrics {
  registry: Registry;
  requestCompleted(method: string, route: string, status: number, seconds: number): void;
}

/** From 1 ms (a page's files) to a minute (uploads forwarded to the platform). */
const durationBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function createProxyMetrics(): ProxyMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'Requests answered by the proxy, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const durations = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request to the end of its answer, by method and route pattern',
    labelNames: ['method', 'route'] as const,
    buckets: durationBuckets,
    registers: [registry],
  });
  // Each series looked up once and kept: no label hashing per request.
  const series = new Map<
    string,
    { count: Counter.Internal; duration: Histogram.Internal<'method' | 'route'> }
  >();
  return {
    registry,
    requestCompleted(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let found = series.get(key);
      if (!found) {
        found = {
          count: requests.labels(method, route, String(status)),
          duration: durations.labels(method, route),
        };
        series.set(key, found);
      }
      found.count.inc();
      found.duration.observe(seconds);
    },
  };
}

/**
 * One compact `info` line per request (method, route pattern, status, ms; the request id from the
 * per-request logger), never a header, cookie or query string; `error` for a failure on our side.
 * It also tells the metrics of every answer.
 */
export class ProxyRequestLog extends LogController {
  readonly #metrics: ProxyMetrics | undefined;

  constructor(metrics?: ProxyMetrics) {
    super();
    this.#metrics = metrics;
  }

  override incomingRequest() {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply) {
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    const ms = reply.elapsedTime;
    this.#metrics?.requestCompleted(request.method, route ?? '(unmatched)', status, ms / 1000);
    if (this.isLogDisabled(request)) return;
    const line = {
      method: request.method,
      route,
      ...(route === undefined ? { path: request.url.split('?')[0] } : {}),
      status,
      ms: Math.round(ms * 10) / 10,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request');
  }
}

/** /metrics on its own port, from when the proxy is ready until it stops; anything else 404. */
export function serveMetrics(app: FastifyInstance, metrics: ProxyMetrics, host: string, port: number) {
  let server: Server | undefined;
  app.addHook('onReady', async () => {
    server = createServer((request, response) => {
      if (request.url !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
        response
          .writeHead(404, { 'content-type': 'text/plain; charset=utf-8' })
          .end('Not found: try /metrics\n');
        return;
      }
      metrics.registry.metrics().then(
        (text) => response.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
        () => response.writeHead(500).end(),
      );
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(port, host, () => resolve());
    });
    app.log.info(`metrics at http://${host}:${port}/metrics`);
  });
  app.addHook('onClose', async () => {
    if (server?.listening) await new Promise((resolve) => server!.close(resolve));
  });
}
