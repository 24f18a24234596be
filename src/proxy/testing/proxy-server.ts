import { request as httpRequest, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { buildProxy } from '../app';
import { configFor, type ProxyConfig } from '../env';
import type { ProbeResult } from '../platform-probe';
import type { FakePlatform } from './fake-platform';

export const webOrigin = 'http://127.0.0.1:5173';

/** The headers the web app sends with every token request. */
export const appHeaders = {
  origin: webOrigin,
  'x-requested-with': 'asset-manager',
  'content-type': 'application/x-www-form-urlencoded',
} as const;

export interface RunningProxy {
  app: FastifyInstance;
  config: ProxyConfig;
  port: number;
  /** Every log line written, as text. */
  logs: string[];
  close(): Promise<void>;
}

/**
 * What the token-exchange tests take the platform to offer, so that the probe's own requests stay out
 * of the requests they count (platform-probe.test.ts probes real servers).
 */
export const spaciousPlatform: ProbeResult = {
  reachable: true,
  cors: { direct: true, idempotencyKey: true, ifMatch: true },
  oauth: { revoke: true, refreshGrant: true },
  api: null,
};

/** The proxy on a real port of 127.0.0.1, pointed at the fake platform. */
export async function startProxy(
  platform: Pick<FakePlatform, 'baseUrl' | 'secret'>,
  overrides: Record<string, string> = {},
  probe: () => Promise<ProbeResult> = async () => spaciousPlatform,
): Promise<RunningProxy> {
  const config = configFor({
    PLATFORM_BASE_URL: platform.baseUrl,
    OAUTH_CLIENT_SECRET: platform.secret,
    WEB_PUBLIC_URL: webOrigin,
    WEB_DIST_DIR: '/nonexistent-dist-for-tests',
    LOG_LEVEL: 'trace',
    ...overrides,
  });
  const logs: string[] = [];
  const app = await buildProxy(config, { logStream: { write: (line) => void logs.push(line) }, probe });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return { app, config, port, logs, close: () => app.close() };
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body's bytes as they came (compressed, when the answer says so). */
  body: Buffer;
  text: string;
  json: () => Record<string, unknown>;
}

/** A raw HTTP request, so that tests control every header (Origin, Host) and the request target. */
export function send(
  port: number,
  options: { method?: string; path: string; headers?: OutgoingHttpHeaders; body?: string },
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'GET',
        path: options.path,
        headers: {
          ...(options.body !== undefined ? { 'content-length': Buffer.byteLength(options.body) } : {}),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          const text = body.toString('utf8');
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body,
            text,
            json: () => JSON.parse(text) as Record<string, unknown>,
          });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** POST a form to the proxy as the web app does, with extra or replaced headers. */
export function postForm(
  port: number,
  path: string,
  fields: Record<string, string>,
  headers: OutgoingHttpHeaders = {},
): Promise<Answer> {
  return send(port, {
    method: 'POST',
    path,
    headers: { ...appHeaders, ...headers },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The proxy's refresh cookie from a response, with its attributes. */
export function refreshCookieOf(answer: Answer): { value: string; attributes: string[] } | undefined {
  const line = (answer.headers['set-cookie'] ?? []).find((c) => c.startsWith('am_refresh='));
  if (!line) return undefined;
  const [pair, ...attributes] = line.split(';').map((part) => part.trim());
  return { value: decodeURIComponent(pair!.slice('am_refresh='.length)), attributes };
}
