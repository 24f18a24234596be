import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { send, startProxy, type RunningProxy } from './testing/proxy-server';

/** A platform that answers every API call 200 and keeps the headers that reached it. */
async function startUpstream() {
  const received: IncomingHttpHeaders[] = [];
  const server: Server = createServer((request, response) => {
    received.push(request.headers);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { baseUrl, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

const freePort = async () => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
};

function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

describe('the proxy with PROXY_METRICS_PORT', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let proxy: RunningProxy;
  let metricsUrl: string;
  beforeAll(async () => {
    upstream = await startUpstream();
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    proxy = await startProxy(
      { baseUrl: upstream.baseUrl, secret: 'proxy-test-secret' },
      { PROXY_METRICS_PORT: String(port), PLATFORM_API_VIA_PROXY: '1', LOG_LEVEL: 'info' },
    );
  });
  afterAll(async () => {
    await proxy?.close();
    await upstream?.close();
  });

  it('counts forwarded API calls by route pattern and status, on its own port only', async () => {
    const series = 'http_requests_total{method="GET",route="/v2/core/*",status="200"}';
    const before = await (await fetch(metricsUrl)).text();
    for (const id of [700001, 700002]) {
      const answer = await send(proxy.port, {
        path: `/v2/core/assets/${id}`,
        headers: { authorization: 'Bearer proxy-secret-token' },
      });
      expect(answer.status).toBe(200);
    }
    const after = await fetch(metricsUrl);
    expect(after.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await after.text();
    expect(sample(text, series) - sample(before, series)).toBe(2);
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).not.toContain('700001');
    expect((await send(proxy.port, { path: '/metrics' })).text).not.toContain('http_requests_total');
  });

  it('logs one info line per request under the request id it answers and passes to the platform', async () => {
    const answer = await send(proxy.port, {
      path: '/v2/core/assets/7',
      headers: { authorization: 'Bearer proxy-secret-token', 'x-request-id': 'edge-77' },
    });
    expect(answer.headers['x-request-id']).toBe('edge-77');
    expect(upstream.received.at(-1)?.['x-request-id']).toBe('edge-77');
    const lines = () =>
      proxy.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((l) => l.reqId === 'edge-77');
    await expect.poll(lines).toEqual([
      expect.objectContaining({
        level: 30,
        msg: 'request',
        method: 'GET',
        route: '/v2/core/*',
        status: 200,
      }),
    ]);
    expect(proxy.logs.join('')).not.toContain('proxy-secret-token');

    const made = await send(proxy.port, {
      path: '/v2/core/assets/8',
      headers: { 'x-request-id': 'x'.repeat(65) },
    });
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(upstream.received.at(-1)?.['x-request-id']).toBe(made.headers['x-request-id']);
  });
});
