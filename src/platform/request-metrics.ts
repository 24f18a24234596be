import type { Metric, Registry } from 'prom-client';

/**
 * `http_requests_total{method,route,status}` and the histogram
 * `http_request_duration_seconds{method,route}`, counted per request in plain numbers and turned
 * into Prometheus series only when Prometheus scrapes.
 *
 * Why not prom-client's Counter and Histogram for these two: each `inc` and `observe` (children
 * from `labels()` included) rebuilds its label set as an object, checks it and hashes it into a
 * string key, then walks the buckets — about 1 µs of each API request, of the 5 µs that the request
 * line and the metrics may cost together (docs/benchmarks.md, "Metrics and the request line"). Here
 * a request is two map reads by strings Fastify keeps (the method, the route pattern) and a few
 * additions. prom-client still names, registers and formats them, beside its other series.
 */
export class RequestMetrics {
  readonly #byMethod = new Map<string, Map<string, RouteCounts>>();
  readonly #bounds: readonly number[];

  /** `bounds`: the histogram's upper bounds in seconds, ascending (+Inf is added). */
  constructor(registry: Registry, bounds: readonly number[]) {
    this.#bounds = bounds;
    registry.registerMetric(this.#counter() as unknown as Metric);
    registry.registerMetric(this.#histogram() as unknown as Metric);
  }

  record(method: string, route: string, status: number, seconds: number) {
    let routes = this.#byMethod.get(method);
    if (routes === undefined) this.#byMethod.set(method, (routes = new Map()));
    let counts = routes.get(route);
    if (counts === undefined) routes.set(route, (counts = new RouteCounts(this.#bounds.length)));
    counts.statuses.set(status, (counts.statuses.get(status) ?? 0) + 1);
    counts.count += 1;
    counts.sum += seconds;
    // The first bound the duration does not pass (le: less than or equal); past the last, +Inf.
    let bucket = 0;
    while (bucket < this.#bounds.length && seconds > this.#bounds[bucket]!) bucket++;
    counts.buckets[bucket]! += 1;
  }

  *#series() {
    for (const [method, routes] of this.#byMethod)
      for (const [route, counts] of routes) yield { method, route, counts };
  }

  #counter() {
    return scraped(
      'http_requests_total',
      'Requests answered, by method, route pattern and status',
      'counter',
      () =>
        [...this.#series()].flatMap(({ method, route, counts }) =>
          [...counts.statuses].map(([status, value]) => ({
            labels: { method, route, status: String(status) },
            value,
          })),
        ),
    );
  }

  #histogram() {
    const name = 'http_request_duration_seconds';
    return scraped(
      name,
      'Time from the request to the end of its answer, by method and route pattern',
      'histogram',
      () =>
        [...this.#series()].flatMap(({ method, route, counts }): Sample[] => {
          let cumulative = 0;
          return [
            ...this.#bounds.map((le, i) => ({
              metricName: `${name}_bucket`,
              labels: { le, method, route },
              value: (cumulative += counts.buckets[i]!),
            })),
            { metricName: `${name}_bucket`, labels: { le: '+Inf', method, route }, value: counts.count },
            { metricName: `${name}_sum`, labels: { method, route }, value: counts.sum },
            { metricName: `${name}_count`, labels: { method, route }, value: counts.count },
          ];
        }),
    );
  }
}

class RouteCounts {
  readonly statuses = new Map<number, number>();
  count = 0;
  sum = 0;
  /** Requests per bucket, not cumulative; the last is past every bound (+Inf). */
  readonly buckets: Float64Array;
  constructor(bounds: number) {
    this.buckets = new Float64Array(bounds + 1);
  }
}

/** A series as prom-client formats it: `metricName` names a histogram's `_bucket`, `_sum` and `_count`. */
interface Sample {
  metricName?: string;
  labels: Record<string, string | number>;
  value: number;
}

/**
 * What prom-client's Registry reads of a metric, as its own metrics give it (`get()` answering
 * `values`); `aggregator` is for its cluster aggregation, which the platform does not use.
 */
function scraped(name: string, help: string, type: 'counter' | 'histogram', values: () => Sample[]) {
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: () => Promise.resolve({ ...metric, values: values() }),
  };
  return metric;
}
