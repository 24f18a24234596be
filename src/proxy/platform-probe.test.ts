import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { configFor } from './env';
import { PlatformKnowledge } from './platform-knowledge';
import { metadataUrl, probePlatform, type ProbeResult } from './platform-probe';

const appOrigin = 'http://127.0.0.1:5173';
const servers: Server[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

interface PlatformShape {
  /** The Access-Control-Allow-Headers answered to preflights; null: no CORS at all. */
  corsHeaders: string | null;
  corsOrigin?: string;
  corsMethods?: string;
  metadata?: Record<string, unknown>;
  openapi?: Record<string, unknown>;
  /** Answers tus discovery on OPTIONS /v2/core/uploads. */
  tus?: boolean;
}

/** A platform answering only what the probe asks, shaped by the test. */
async function startPlatform(shape: PlatformShape): Promise<string> {
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = (request.url ?? '').split('?')[0];
    if (request.method === 'OPTIONS') {
      if (path === '/v2/core/uploads' && shape.tus)
        return void response.writeHead(204, { 'tus-resumable': '1.0.0', 'tus-version': '1.0.0' }).end();
      if (shape.corsHeaders === null) return void response.writeHead(404).end();
      response.writeHead(204, {
        'access-control-allow-origin': shape.corsOrigin ?? request.headers.origin ?? '*',
        'access-control-allow-methods': shape.corsMethods ?? 'GET, POST, PUT, DELETE',
        'access-control-allow-headers': shape.corsHeaders,
      });
      return void response.end();
    }
    const json = (body: unknown) =>
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (path === '/.well-known/oauth-authorization-server' && shape.metadata) return json(shape.metadata);
    if (path === '/v2/core/openapi.json' && shape.openapi) return json(shape.openapi);
    response.writeHead(404, { 'content-type': 'application/json' }).end('{"errors":["Not found"]}');
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const entityPaths = configFor({ OAUTH_CLIENT_SECRET: 's' }).entityPaths;
const probe = (baseUrl: string) =>
  probePlatform({
    platformBaseUrl: baseUrl,
    platformAuthUrl: baseUrl,
    appOrigin,
    entityPaths,
    timeoutMs: 5_000,
  });

/** The paths and parameters our platform's API description lists, as far as the probe reads them. */
const ourApiDescription = {
  openapi: '3.0.3',
  paths: {
    '/v2/core/me': { get: {} },
    ...Object.fromEntries(
      Object.values(entityPaths).map((path) => [path!.replace(':id', '{id}'), { get: {} }]),
    ),
    '/v2/core/assets/{id}/download_url': {
      get: {
        parameters: [
          { in: 'query', name: 'variant' },
          { in: 'query', name: 'width' },
        ],
      },
    },
    '/v2/core/accreditations': { get: {} },
    '/v2/core/accreditations/{id}': { get: {}, put: {} },
    '/v2/core/accreditations/{id}/history': { get: {} },
    '/v2/core/products': { get: {} },
  },
};

describe('probing the platform', () => {
  it('finds everything our platform publishes: CORS with both optional headers, metadata, API description', async () => {
    const url = await startPlatform({
      corsHeaders: 'Authorization, Content-Type, If-Match, Idempotency-Key',
      metadata: {
        issuer: 'x',
        revocation_endpoint: 'x/revoke',
        grant_types_supported: ['authorization_code', 'refresh_token'],
      },
      openapi: ourApiDescription,
    });
    expect(await probe(url)).toEqual({
      reachable: true,
      cors: { direct: true, idempotencyKey: true, ifMatch: true },
      oauth: { revoke: true, refreshGrant: true },
      api: {
        me: true,
        entityReads: true,
        renditions: true,
        review: true,
        reviewHistory: true,
        offerings: true,
      },
      resumableUploads: false,
    });
  });

  it('C4: a spec-only platform allowing Authorization and Content-Type only: direct, without the optional headers', async () => {
    const url = await startPlatform({ corsHeaders: 'Authorization, Content-Type' });
    expect(await probe(url)).toEqual({
      reachable: true,
      cors: { direct: true, idempotencyKey: false, ifMatch: false },
      oauth: null,
      api: null,
      resumableUploads: false,
    });
  });

  it('finds resumable uploads where OPTIONS /v2/core/uploads answers Tus-Resumable, without a token', async () => {
    const url = await startPlatform({ corsHeaders: 'Authorization, Content-Type', tus: true });
    expect((await probe(url)).resumableUploads).toBe(true);
  });

  it('a platform whose CORS does not admit the app, or admits it without Authorization, cannot be called directly', async () => {
    for (const shape of [
      { corsHeaders: null },
      { corsHeaders: 'Authorization, Content-Type', corsOrigin: 'https://other.example' },
      // `*` covers every header but Authorization (Fetch standard).
      { corsHeaders: '*' },
      { corsHeaders: 'Authorization, Content-Type', corsMethods: 'GET, POST' },
    ]) {
      expect((await probe(await startPlatform(shape))).cors?.direct).toBe(false);
    }
  });

  it('reads RFC 8414 metadata without a refresh grant as no refresh, and without revocation as no revoke', async () => {
    const url = await startPlatform({
      corsHeaders: 'Authorization, Content-Type',
      metadata: { issuer: 'x' },
    });
    expect((await probe(url)).oauth).toEqual({ revoke: false, refreshGrant: false });
  });

  it('an API description without our extensions says they are not offered', async () => {
    const url = await startPlatform({
      corsHeaders: 'Authorization, Content-Type',
      openapi: { openapi: '3.1.0', paths: { '/v2/core/assets/{id}/download_url': { get: {} } } },
    });
    expect((await probe(url)).api).toEqual({
      me: false,
      entityReads: false,
      renditions: false,
      review: false,
      reviewHistory: false,
      offerings: false,
    });
  });

  it('reports an unreachable platform as such', async () => {
    const result = await probe('http://127.0.0.1:9');
    expect(result).toEqual({ reachable: false, cors: null, oauth: null, api: null, resumableUploads: null });
  });

  it('puts the well-known path between the host and the issuer path (RFC 8414 3.1)', () => {
    expect(metadataUrl('https://auth.example.com')).toBe(
      'https://auth.example.com/.well-known/oauth-authorization-server',
    );
    expect(metadataUrl('https://example.com/tenant/1/')).toBe(
      'https://example.com/.well-known/oauth-authorization-server/tenant/1',
    );
  });
});

describe('what the proxy tells the app', () => {
  const found = (cors: ProbeResult['cors'], reachable = true): ProbeResult => ({
    reachable,
    cors,
    oauth: null,
    api: null,
  });
  const config = (extra: Record<string, string> = {}) => configFor({ OAUTH_CLIENT_SECRET: 's', ...extra });

  it('sends the app through the proxy when CORS does not admit it, with every header allowed', async () => {
    const view = await new PlatformKnowledge(config(), async () =>
      found({ direct: false, idempotencyKey: false, ifMatch: false }),
    ).view();
    expect(view.viaProxy).toBe(true);
    expect(view.capabilities).toMatchObject({ idempotencyKey: true, ifMatch: true });
  });

  it('calls directly when CORS admits the app, and sends only the headers CORS allows', async () => {
    const view = await new PlatformKnowledge(config(), async () =>
      found({ direct: true, idempotencyKey: false, ifMatch: true }),
    ).view();
    expect(view.viaProxy).toBe(false);
    expect(view.capabilities).toMatchObject({ idempotencyKey: false, ifMatch: true });
  });

  it('follows PLATFORM_API_VIA_PROXY and PLATFORM_CAPABILITIES over anything probed', async () => {
    const view = await new PlatformKnowledge(
      config({ PLATFORM_API_VIA_PROXY: '1', PLATFORM_CAPABILITIES: 'me=off, renditions=on,revoke=off' }),
      async () => found({ direct: true, idempotencyKey: true, ifMatch: true }),
    ).view();
    expect(view.viaProxy).toBe(true);
    expect(view.capabilities).toMatchObject({
      me: false,
      renditions: true,
      revoke: false,
      entityReads: null,
    });
  });

  it('probes an unreachable platform again once a while has passed', async () => {
    let now = 0;
    let probes = 0;
    const knowledge = new PlatformKnowledge(
      config(),
      async () => {
        probes += 1;
        return probes === 1
          ? found(null, false)
          : found({ direct: true, idempotencyKey: true, ifMatch: true });
      },
      () => now,
    );
    expect((await knowledge.view()).viaProxy).toBe(true);
    now += 1_000;
    await knowledge.view();
    expect(probes).toBe(1);
    now += 60_000;
    expect((await knowledge.view()).viaProxy).toBe(false);
    expect(probes).toBe(2);
  });

  it('refuses capability and entity path settings it cannot read, naming them', () => {
    expect(() => config({ PLATFORM_CAPABILITIES: 'renditions=maybe' })).toThrow(/PLATFORM_CAPABILITIES/);
    expect(() => config({ PLATFORM_CAPABILITIES: 'telepathy=on' })).toThrow(/PLATFORM_CAPABILITIES/);
    expect(() => config({ PLATFORM_ENTITY_PATHS: 'Product=/v2/core/offerings' })).toThrow(
      /PLATFORM_ENTITY_PATHS/,
    );
    expect(
      config({ PLATFORM_ENTITY_PATHS: 'Product=/v2/core/offerings/:id, User=none' }).entityPaths,
    ).toMatchObject({
      Product: '/v2/core/offerings/:id',
      User: null,
      Investment: '/v2/core/investments/:id',
    });
  });
});
