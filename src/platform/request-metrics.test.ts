import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestMetrics } from './request-metrics';

describe('the request series as Prometheus reads them', () => {
  it('counts by status and puts each duration in the first bucket it does not pass', async () => {
    const registry = new Registry();
    const requests = new RequestMetrics(registry, [0.01, 0.1]);
    requests.record('GET', '/v2/core/assets/:id', 200, 0.01);
    requests.record('GET', '/v2/core/assets/:id', 200, 0.05);
    requests.record('GET', '/v2/core/assets/:id', 404, 3);
    requests.record('POST', '/v2/core/assets', 201, 0.002);
    const text = await registry.metrics();
    const get = 'method="GET",route="/v2/core/assets/:id"';
    expect(text).toContain('# TYPE http_requests_total counter');
    expect(text).toContain(`http_requests_total{${get},status="200"} 2\n`);
    expect(text).toContain(`http_requests_total{${get},status="404"} 1\n`);
    expect(text).toContain('http_requests_total{method="POST",route="/v2/core/assets",status="201"} 1\n');
    expect(text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(text).toContain(`http_request_duration_seconds_bucket{le="0.01",${get}} 1\n`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="0.1",${get}} 2\n`);
    expect(text).toContain(`http_request_duration_seconds_bucket{le="+Inf",${get}} 3\n`);
    expect(text).toContain(`http_request_duration_seconds_sum{${get}} 3.06\n`);
    expect(text).toContain(`http_request_duration_seconds_count{${get}} 3\n`);
  });
});
