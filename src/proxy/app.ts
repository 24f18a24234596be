import cookie from '@fastify/cookie';
import helmet from '@fastify/helmet';
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance } from 'fastify';
import { installApiForwarding } from './api-forwarding';
import type { ProxyConfig } from './env';
import { installErrorHandler } from './errors';
import { createProxyMetrics, ProxyRequestLog, serveMetrics } from './metrics';
import { requestIdFrom, requestIdHeader } from '../shared/api/request-id';
import { oauthRoutes } from './oauth-routes';
import { PlatformKnowledge } from './platform-knowledge';
import type { ProbeResult } from './platform-probe';
import { PlatformClient } from './token-exchange';
import { cspDirectives, installWebApp } from './web-app-routes';

export interface ProxyOptions {
  /** Where log lines go (tests capture them); standard output when absent. */
  logStream?: { write(line: string): void };
  /** Tests decide what the platform is found to offer; by default the proxy probes it. */
  probe?: () => Promise<ProbeResult>;
}

const pathOnly = (url: string | undefined) => (url ?? '').split('?')[0];

/**
 * Log lines name the request and the outcome, never what was carried (P1): no query string (the
 * callback's carries the authorization code), no headers (cookies), no bodies, no error messages,
 * which can quote any of these. Redaction catches what a future log call might add by mistake.
 */
const loggerOptions = (config: ProxyConfig, options: ProxyOptions) => ({
  level: config.logLevel,
  ...(options.logStream ? { stream: options.logStream } : {}),
  serializers: {
    req: (req: { method?: string; url?: string; ip?: string }) => ({
      method: req.method,
      url: pathOnly(req.url),
      remoteAddress: req.ip,
    }),
    res: (res: { statusCode?: number }) => ({ statusCode: res.statusCode }),
    err: (err: { name?: string; code?: unknown; statusCode?: unknown }) => ({
      type: err.name ?? 'Error',
      code: err.code,
      statusCode: err.statusCode,
      message: '[not logged]',
      stack: '[not logged]',
    }),
  },
  redact: {
    paths: [
      'headers',
      'body',
      'cookies',
      'query',
      '*.headers',
      '*.body',
      '*.cookies',
      '*.query',
      '*.client_secret',
      '*.access_token',
      '*.refresh_token',
    ],
    censor: '[redacted]',
  },
});

/**
 * Builds the proxy without listening: the token exchange with its checks, the web app's files with
 * their security headers, and /app-config.json. `main.ts` listens; tests call it over real HTTP.
 */
export async function buildProxy(config: ProxyConfig, options: ProxyOptions = {}): Promise<FastifyInstance> {
  const metrics = config.metrics ? createProxyMetrics() : undefined;
  const app = Fastify({
    logger: loggerOptions(config, options),
    logController: new ProxyRequestLog(metrics),
    bodyLimit: 16 * 1024,
    // X-Request-Id is checked before it is believed (request-id.ts), so Fastify does not read it.
    requestIdHeader: false,
    genReqId: (request) => requestIdFrom(request.headers[requestIdHeader]),
    // Addresses are the socket's: X-Forwarded-For would let any caller pick its own rate-limit bucket.
    trustProxy: false,
    forceCloseConnections: true,
  });
  installErrorHandler(app);
  if (metrics && config.metrics) serveMetrics(app, metrics, config.metrics.host, config.metrics.port);
  // Every answer names its request, as every log line of it does (and the platform's, for the API).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(requestIdHeader, request.id);
    done();
  });
  // An absolute-form request target (`GET http://host/path`, RFC 9112 3.2.2) is for forward proxies,
  // which this is not; every route here, and the platform behind, expects a path.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/'))
      return reply.code(400).type('text/plain; charset=utf-8').send('The request target must be a path.');
  });

  const platform = new PlatformClient({
    platformBaseUrl: config.platformBaseUrl,
    clientId: config.clientId,
    clientSecret: config.clientSecret,
    timeoutMs: config.platformTimeoutMs,
  });

  await app.register(helmet, {
    global: true,
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(config) },
    // Not no-referrer: under it a browser sends `Origin: null` on same-origin POSTs, and the token
    // endpoint checks Origin (P4). This policy still gives other sites the origin at most.
    referrerPolicy: { policy: 'strict-origin-when-cross-origin' },
    frameguard: { action: 'deny' },
    // HSTS only means something on https; on plain http it would only confuse a local browser.
    strictTransportSecurity: config.publicOrigin.startsWith('https:'),
  });
  await app.register(cookie);
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => ({
      statusCode: 429,
      message: `Rate limit exceeded, retry in ${context.after}`,
    }),
  });

  const knowledge = new PlatformKnowledge(config, options.probe);
  knowledge.start();
  await app.register(oauthRoutes, { config, platform, knowledge });
  // Always ready unless turned off: in `auto`, the app is told to use it when CORS does not admit it.
  if (config.apiViaProxy !== '0') await installApiForwarding(app, config);
  await installWebApp(app, config, knowledge);
  return app;
}
