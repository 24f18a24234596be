import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { send, startProxy, webOrigin, type RunningProxy } from './testing/proxy-server';

interface Received {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  bytes: number;
  sha256: string;
}

const megabyte = 1024 * 1024;

/** A platform that records what reaches it and answers a few fixed routes, large bodies included. */
async function startUpstream() {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    const hash = createHash('sha256');
    let bytes = 0;
    request.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      hash.update(chunk);
    });
    request.on('end', () => {
      received.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        bytes,
        sha256: hash.digest('hex'),
      });
      if (request.url === '/v2/core/big') {
        response.writeHead(200, { 'content-type': 'application/octet-stream' });
        Readable.from(chunks(100 * megabyte, 'download')).pipe(response);
        return;
      }
      response.writeHead(request.method === 'POST' ? 201 : 200, {
        'content-type': 'application/json',
        etag: '"v1"',
        location: '/v2/core/assets/1',
        'set-cookie': 'platform_session=must-not-leak; Path=/',
        'x-upstream-debug': 'must-not-leak',
      });
      response.end(JSON.stringify({ asset: { id: 1 }, bytes }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { baseUrl, received, close: () => new Promise((resolve) => server.close(resolve)) };
}

/** `size` bytes in 64 KB pieces, the same for the same seed, made as they are read. */
function* chunks(size: number, seed: string) {
  const piece = createHash('sha512').update(seed).digest();
  const block = Buffer.concat(Array.from({ length: 1024 }, () => piece)); // 64 KB
  for (let sent = 0; sent < size; sent += block.length)
    yield block.subarray(0, Math.min(block.length, size - sent));
}

const sha256Of = (size: number, seed: string) => {
  const hash = createHash('sha256');
  for (const chunk of chunks(size, seed)) hash.update(chunk);
  return hash.digest('hex');
};

/**
 * A raw request with a streamed body; answers status, body hash and size. The proxy may answer before
 * the body is all sent (a refusal): an error writing the rest after the answer has come is expected.
 */
function stream(
  port: number,
  options: { method: string; path: string; headers?: Record<string, string>; body?: Iterable<Buffer> },
) {
  return new Promise<{ status: number; bytes: number; sha256: string; text: string }>((resolve, reject) => {
    let answered = false;
    const req = httpRequest(
      { host: '127.0.0.1', port, method: options.method, path: options.path, headers: options.headers },
      (res) => {
        answered = true;
        const hash = createHash('sha256');
        let bytes = 0;
        let head = '';
        res.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          hash.update(chunk);
          if (head.length < 2000) head += chunk.toString('utf8');
        });
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, bytes, sha256: hash.digest('hex'), text: head }),
        );
      },
    );
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (options.body)
      Readable.from(options.body)
        .pipe(req)
        .on('error', () => undefined);
    else if (options.headers?.['content-length']) req.flushHeaders();
    else req.end();
  });
}

describe('forwarding the API through the proxy (PLATFORM_API_VIA_PROXY=1)', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let proxy: RunningProxy;

  beforeAll(async () => {
    upstream = await startUpstream();
  });
  afterAll(async () => {
    await upstream.close();
  });
  afterEach(async () => {
    await proxy.close();
    upstream.received.length = 0;
  });

  const start = async (extra: Record<string, string> = {}) => {
    proxy = await startProxy(
      { baseUrl: upstream.baseUrl, secret: 'secret' },
      { PLATFORM_API_VIA_PROXY: '1', ...extra },
    );
  };

  it('passes Authorization and the optional headers on, and never the cookies, either way (P7)', async () => {
    await start();
    const answer = await send(proxy.port, {
      method: 'PUT',
      path: '/v2/core/assets/1?x=1',
      headers: {
        authorization: 'Bearer the-token',
        'content-type': 'application/json',
        'if-match': '"v0"',
        cookie: 'am_refresh=the-refresh-token',
        origin: webOrigin,
        'x-something-else': 'stays here',
      },
      body: JSON.stringify({ asset: { name: 'A' } }),
    });
    expect(answer.status).toBe(200);
    expect(answer.json()).toEqual({ asset: { id: 1 }, bytes: Buffer.byteLength('{"asset":{"name":"A"}}') });
    expect(answer.headers.etag).toBe('"v1"');
    expect(answer.headers['set-cookie']).toBeUndefined();
    expect(answer.headers['x-upstream-debug']).toBeUndefined();

    const [request] = upstream.received;
    expect(request).toMatchObject({ method: 'PUT', url: '/v2/core/assets/1?x=1' });
    expect(request!.headers).toMatchObject({
      authorization: 'Bearer the-token',
      'content-type': 'application/json',
      'if-match': '"v0"',
      'x-forwarded-for': '127.0.0.1',
    });
    expect(request!.headers.cookie).toBeUndefined();
    expect(request!.headers.origin).toBeUndefined();
    expect(request!.headers['x-something-else']).toBeUndefined();
  });

  it('never forwards to the platform token or revocation endpoints (P2)', async () => {
    await start();
    for (const path of ['/v2/core/oauth/token?grant_type=refresh_token', '/v2/core/oauth/revoke']) {
      const answer = await send(proxy.port, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(answer.status).toBe(404);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect(upstream.received).toHaveLength(0);
  });

  it('refuses dot segments and paths that leave /v2/core/ once decoded, passing nothing on', async () => {
    await start();
    const refused = {
      '/v2/core/./oauth/token?grant_type=refresh_token': 400,
      '/v2/core/assets/../oauth/revoke': 400,
      '/v2/core/%2e/oauth/token': 400,
      '/v2/core/%2E%2E/%2E%2E/healthz': 400,
      '/v2/core/assets/..%2f..%2fhealthz': 400,
      '/v2/core/assets\\..\\oauth/token': 400,
      // Encoded letters: the platform decodes them, so they would reach its token endpoint.
      '/v2/core/%6fauth/token': 404,
    };
    for (const [path, status] of Object.entries(refused)) {
      const answer = await send(proxy.port, {
        method: 'POST',
        path,
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect([path, answer.status]).toEqual([path, status]);
      expect(answer.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
    expect(upstream.received).toHaveLength(0);
  });

  it('answers 400 to an absolute-form request target, passing nothing on', async () => {
    await start();
    for (const path of ['http://127.0.0.1:1/v2/core/assets/1', 'http://evil.example/v2/core/me']) {
      const answer = await send(proxy.port, { path, headers: { authorization: 'Bearer t' } });
      expect([path, answer.status]).toEqual([path, 400]);
    }
    expect(upstream.received).toHaveLength(0);
  });

  it('refuses a body over PROXY_MAX_BODY_BYTES, declared or streamed, without passing it on whole', async () => {
    await start({ PROXY_MAX_BODY_BYTES: String(megabyte) });
    // Refused on its Content-Length alone: the answer comes before a byte of the body is sent.
    const declared = await stream(proxy.port, {
      method: 'POST',
      path: '/v2/core/assets',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(2 * megabyte) },
    });
    expect(declared.status).toBe(413);
    expect(upstream.received).toHaveLength(0);

    const chunked = await stream(proxy.port, {
      method: 'POST',
      path: '/v2/core/assets',
      headers: { 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' },
      body: chunks(3 * megabyte, 'too-large'),
    });
    expect(chunked.status).toBe(413);
    expect(upstream.received.every((r) => r.bytes <= megabyte)).toBe(true);
  });

  it('answers 502 problem JSON when the platform cannot be reached', async () => {
    proxy = await startProxy(
      { baseUrl: 'http://127.0.0.1:9', secret: 'secret' },
      { PLATFORM_API_VIA_PROXY: '1' },
    );
    const answer = await send(proxy.port, {
      path: '/v2/core/assets/1',
      headers: { authorization: 'Bearer t' },
    });
    expect(answer.status).toBe(502);
    expect(answer.json()).toMatchObject({ status: 502, code: 'platform_unreachable' });
  });

  it('is not there at all with PLATFORM_API_VIA_PROXY=0', async () => {
    await start({ PLATFORM_API_VIA_PROXY: '0' });
    const answer = await send(proxy.port, {
      path: '/v2/core/assets/1',
      headers: { authorization: 'Bearer t' },
    });
    expect(answer.status).toBe(404);
    expect(upstream.received).toHaveLength(0);
  });
});

/** Peak resident memory of a process (Linux), in bytes. */
const peakRss = (pid: number) =>
  Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

describe('a 100 MB body passes through the proxy in pieces, never whole', () => {
  let upstream: Awaited<ReturnType<typeof startUpstream>>;
  let child: ChildProcess;
  let port: number;

  beforeAll(async () => {
    upstream = await startUpstream();
    port = await freePort();
    // The proxy as it runs in production: its own process, started with node, so its memory is its own.
    child = spawn(process.execPath, ['--import', 'tsx', 'src/proxy/main.ts'], {
      env: {
        ...process.env,
        WEB_PORT: String(port),
        PLATFORM_BASE_URL: upstream.baseUrl,
        PLATFORM_API_VIA_PROXY: '1',
        OAUTH_CLIENT_SECRET: 'secret',
        WEB_DIST_DIR: '/nonexistent-dist-for-tests',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    // Up to a minute to start on a busy machine (node, tsx, the proxy's modules).
    const deadline = Date.now() + 60_000;
    for (;;) {
      const up = await send(port, { path: '/app-config.json' }).catch(() => null);
      if (up?.status === 200) break;
      if (Date.now() > deadline || child.exitCode !== null) throw new Error('the proxy did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    // Warm both directions up: the first transfers grow the allocator's pools by some 20-30 MB once,
    // whatever their size (measured: 20 MB +18, then 100 MB +8, then 200 MB +0).
    await stream(port, { method: 'POST', path: '/v2/core/assets', body: chunks(20 * megabyte, 'warm-up') });
    await stream(port, { method: 'GET', path: '/v2/core/big' });
  }, 180_000);

  afterAll(async () => {
    child.kill();
    await upstream.close();
  });

  it('uploads 100 MB byte for byte with the proxy growing by far less than the body', async () => {
    const before = peakRss(child.pid!);
    const answer = await stream(port, {
      method: 'POST',
      path: '/v2/core/assets',
      headers: {
        authorization: 'Bearer t',
        'content-type': 'multipart/form-data; boundary=x',
        'content-length': String(100 * megabyte),
      },
      body: chunks(100 * megabyte, 'upload'),
    });
    expect(answer.status).toBe(201);
    const received = upstream.received.at(-1)!;
    expect(received.bytes).toBe(100 * megabyte);
    expect(received.sha256).toBe(sha256Of(100 * megabyte, 'upload'));
    const growth = peakRss(child.pid!) - before;
    console.log(`proxy peak RSS growth during a 100 MB upload: ${(growth / megabyte).toFixed(1)} MB`);
    expect(growth).toBeLessThan(30 * megabyte);
  }, 120_000);

  it('downloads a 100 MB answer byte for byte, the same way', async () => {
    const before = peakRss(child.pid!);
    const answer = await stream(port, {
      method: 'GET',
      path: '/v2/core/big',
      headers: { authorization: 'Bearer t' },
    });
    expect(answer.status).toBe(200);
    expect(answer.bytes).toBe(100 * megabyte);
    expect(answer.sha256).toBe(sha256Of(100 * megabyte, 'download'));
    const growth = peakRss(child.pid!) - before;
    console.log(`proxy peak RSS growth during a 100 MB answer: ${(growth / megabyte).toFixed(1)} MB`);
    expect(growth).toBeLessThan(30 * megabyte);
  }, 120_000);

  it('still has random bytes of its own to spare (a sanity check of the measurement)', () => {
    // VmHWM must move when memory really is used: 64 MB held at once in this process shows up here.
    const before = peakRss(process.pid);
    const held = randomBytes(64 * megabyte);
    expect(peakRss(process.pid) - before).toBeGreaterThan(32 * megabyte);
    expect(held.length).toBe(64 * megabyte);
  });
});
