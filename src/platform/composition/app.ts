import { mkdirSync } from 'node:fs';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import swagger from '@fastify/swagger';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { apiPaths } from '../../shared/api/paths';
import { requestIdFrom, requestIdHeader } from '../../shared/api/request-id';
import { checkServerConfig, type PlatformConfig } from '../config/env';
import { openDatabase, poolOf } from '../db/database';
import { connectionOptions } from '../http/connection-timeouts';
import { installErrorHandling } from '../http/errors';
import { pathCors } from '../plugins/cors';
import { bufferedStdout } from '../plugins/log-output';
import { openApiTransform } from '../plugins/openapi';
import { rateLimits } from '../plugins/rate-limits';
import { RequestLog } from '../plugins/request-log';
import { serializerCompiler } from '../plugins/response-serializer';
import { securityHeaders } from '../plugins/security-headers';
import { loadSigningKey } from '../security/secrets';
import { sweepPeriodically, sweepStorage } from '../storage/sweep';
import { databaseCheck, healthRoutes } from '../health';
import { countBlobStoreErrors, createPlatformMetrics, serveMetrics, type PlatformMetrics } from '../metrics';
import { createPdfThumbnailPool } from '../media/pdf-thumbnail-pool';
import { createPendingThumbnails, type ThumbnailHooks } from '../media/pending-thumbnails';
import { createRenditions } from '../media/renditions';
import { meRoutes } from '../users/me-routes';
import { bearerAuthentication } from '../oauth/bearer';
import { metadataRoutes } from '../oauth/metadata-routes';
import { renderErrorPage } from '../oauth/pages';
import { signInRoutes } from '../oauth/sign-in-routes';
import { tokenRoutes } from '../oauth/token-routes';
import { entityRoutes, type AssetPageReader } from '../entities/entity-routes';
import { reviewRoutes } from '../entities/review-routes';
import { assetRoutes, assetUploadRoutes } from '../assets/asset-routes';
import { deliveryRoutes } from '../assets/delivery-routes';
import { visibleAssetPage } from '../assets/entity-asset-page';
import { releaseInterruptedKeys } from '../assets/idempotency';
import { resumableUploadRoutes } from '../assets/resumable/resumable-upload-routes';
import { maxMultipartFields } from '../assets/upload-body';
import { seedDemoData } from '../cli/demo-seed';
import type { PlatformContext } from './context';
import { createSharedState } from './shared-state';
import { createStorage } from './storage';

const publicApiPaths = new Set<string>([apiPaths.token, apiPaths.revoke, apiPaths.openapi]);
/** The API answers JSON only, under this prefix; pages (sign-in) and files are elsewhere. */
const isApiUrl = (url: string) => url.startsWith('/v2/core/');
/** The API's paths that need a bearer token: rate-limited, then authenticated, by one hook. */
const isLimitedBeforeAuth = (path: string) => isApiUrl(path) && !publicApiPaths.has(path);

export interface PlatformOptions {
  clock?: () => number;
  logger?: FastifyServerOptions['logger'];
  /** Tests hold thumbnails pending with these (media/pending-thumbnails.ts). */
  thumbnailHooks?: ThumbnailHooks;
}

/**
 * Builds the platform (database opened and migrated, demo data seeded when configured) without
 * listening, so tests and `main.ts` share one factory. This is the composition root: the one place
 * that knows every implementation (with the rest of `composition/`), and the order things must happen in.
 */
export async function buildPlatform(
  config: PlatformConfig,
  options: PlatformOptions = {},
): Promise<FastifyInstance> {
  checkServerConfig(config);
  // Secrets and generated files live there whichever database and store hold the rest.
  mkdirSync(config.dataDir, { recursive: true });
  // Made here and passed down: the registry is this platform's, not the process's (metrics.ts).
  const metrics = config.metrics ? createPlatformMetrics() : undefined;
  const output = options.logger === undefined ? bufferedStdout() : undefined;
  const app = createServer(config, options, metrics, output);
  const backends = await openBackends(app, config, options, metrics);
  const ctx = contextOf(app, config, options, backends, metrics);
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  startAndStop(app, ctx, backends, { metrics, output });
  installErrorHandling(app, renderErrorPage);
  // Every answer names its request, as every log line of it does.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header(requestIdHeader, request.id);
    done();
  });
  if (metrics && config.metrics) {
    // Fastify watches for each answer's end, and then tells the log controller (the metrics), only
    // when it has a logger or an onResponse hook: tests run without a logger.
    if (options.logger === false) app.addHook('onResponse', (_request, _reply, done) => done());
    metrics.watch({
      pool: poolOf(ctx.db),
      thumbnails: ctx.thumbnails,
      redisConnected: backends.shared.connected,
    });
    serveMetrics(app, metrics, config.metrics.host, config.metrics.port);
  }
  const countApiRequest = await installPlugins(app, config, backends.shared);
  healthRoutes(app, {
    database: databaseCheck(ctx.db),
    blob_store: () => ctx.blobs.reachable(),
    redis: backends.shared.reachable,
  });
  await registerRoutes(app, ctx, countApiRequest, metrics);
  return app;
}

/** Fastify with the platform's logger, request ids, proxies believed and connection timeouts. */
function createServer(
  config: PlatformConfig,
  options: PlatformOptions,
  metrics: PlatformMetrics | undefined,
  output: ReturnType<typeof bufferedStdout> | undefined,
) {
  return Fastify({
    logger: options.logger ?? {
      level: config.logLevel,
      stream: output,
      serializers: { req: (req) => ({ method: req.method, url: req.url.split('?')[0] }) },
    },
    logController: new RequestLog(metrics?.requestCompleted),
    bodyLimit: 1024 * 1024,
    // X-Request-Id is checked before it is believed (request-id.ts), so Fastify does not read it.
    requestIdHeader: false,
    genReqId: (request) => requestIdFrom(request.headers[requestIdHeader]),
    // Behind nginx every request comes from nginx's address: the client's is in X-Forwarded-For,
    // believed only from the proxies named here (deploy/).
    trustProxy: config.trustProxy,
    // Header, request, idle and keep-alive timeouts (H8).
    ...connectionOptions(config.http),
    // On stop, end keep-alive and in-flight connections too: a stop should not wait on a slow upload.
    forceCloseConnections: true,
  });
}

type Backends = Awaited<ReturnType<typeof openBackends>>;

/**
 * The database (migrated, seeded when configured), the blob store and rendition cache, the PDF
 * render pool and the shared state (memory or Redis), with what a crash or stop left behind swept.
 */
async function openBackends(
  app: FastifyInstance,
  config: PlatformConfig,
  options: PlatformOptions,
  metrics: PlatformMetrics | undefined,
) {
  const clock = options.clock ?? Date.now;
  // The logger first: start-up says where it is still waiting for the database.
  const db = await openDatabase(config, app.log);
  if (config.demoSeed) await seedDemoData(db, config, clock());
  const storage = createStorage(config);
  const blobs = metrics ? countBlobStoreErrors(storage.blobs, metrics) : storage.blobs;
  logBackends(app, config);
  const renditions = createRenditions(storage.renditionCache, blobs);
  const pdfThumbnails = createPdfThumbnailPool(config.pdfThumbnails);
  await sweepStorage({ db, blobs, clock }, { minAgeMs: storage.orphanAgeMs });
  await renditions.sweep(db);
  // Rate limits, sign-in throttling, the upload cap and revocations: in memory, or in Redis.
  const shared = await createSharedState(config, clock, app.log).catch(async (error: unknown) => {
    await db.destroy();
    storage.close();
    throw error;
  });
  await releaseInterruptedKeys(db, shared.runningClaims);
  return { db, storage, blobs, renditions, pdfThumbnails, shared, clock };
}

/** What every route module receives (composition/context.ts). */
function contextOf(
  app: FastifyInstance,
  config: PlatformConfig,
  options: PlatformOptions,
  { db, blobs, renditions, pdfThumbnails, shared, clock }: Backends,
  metrics: PlatformMetrics | undefined,
): PlatformContext {
  return {
    config,
    db,
    clock,
    signingKey: loadSigningKey(config.dataDir, config.signingKey),
    signInLimiter: shared.signInLimiter,
    blobs,
    accessTokens: shared.accessTokens,
    uploadSlots: shared.uploadSlots,
    runningClaims: shared.runningClaims,
    uploadLocker: shared.uploadLocker,
    renditions,
    pdfThumbnails,
    thumbnails: createPendingThumbnails(
      { db, blobs, pdfThumbnails, clock, runningClaims: shared.runningClaims },
      app.log,
      {
        // Two per worker keep each worker fed while the next job's rows are read.
        concurrency: 2 * config.pdfThumbnails.workers,
        hooks: options.thumbnailHooks,
        onOutcome: metrics?.thumbnailOutcome,
      },
    ),
  };
}

/**
 * At start the PDF workers (so that the first PDF does not wait for pdf.js to load), then the
 * thumbnails a stop or crash left pending, then the periodic sweep; at stop the reverse, so that
 * renders end (their thumbnails stay pending) before the database closes under them.
 */
function startAndStop(
  app: FastifyInstance,
  ctx: PlatformContext,
  { db, storage, shared }: Backends,
  { metrics, output }: { metrics?: PlatformMetrics; output?: ReturnType<typeof bufferedStdout> },
) {
  let stopSweeps = async () => {};
  app.addHook('onReady', async () => {
    ctx.pdfThumbnails.start();
    await ctx.thumbnails.resume();
    if (storage.orphanAgeMs !== undefined)
      stopSweeps = sweepPeriodically(ctx, app.log, storage.orphanAgeMs, undefined, metrics?.sweepFinished);
  });
  app.addHook('onClose', async () => {
    await stopSweeps();
    await ctx.thumbnails.close();
    await db.destroy();
    await shared.close();
    storage.close();
    // What waits goes out now and the batch timer stops; standard output stays open for the lines
    // of the stop that follow.
    output?.close();
  });
}

/**
 * The OpenAPI document, form bodies, security headers, CORS and rate limits. Answers the API's own
 * rate-limit check, which `registerRoutes` runs before authentication.
 */
async function installPlugins(app: FastifyInstance, config: PlatformConfig, shared: Backends['shared']) {
  await app.register(swagger, {
    openapi: {
      info: { title: 'Investment Platform API', version: '2.0.0' },
      servers: [{ url: config.publicUrl }],
      components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    },
    transform: openApiTransform,
  });
  await app.register(formbody, { bodyLimit: 64 * 1024 });
  await securityHeaders(
    app,
    {
      frameguard: { action: 'deny' },
      // Not no-referrer: under it browsers send `Origin: null` on form posts, and the sign-in forms
      // check Origin. same-origin still leaks nothing to other sites (codes travel in redirect URLs).
      referrerPolicy: { policy: 'same-origin' },
      // HSTS only means something on https; on plain http it would only confuse a local browser.
      strictTransportSecurity: config.publicUrl.startsWith('https:'),
      contentSecurityPolicy: {
        directives: {
          'default-src': ["'none'"],
          'style-src': ["'self'"],
          'img-src': ["'self'"],
          'base-uri': ["'none'"],
          'frame-ancestors': ["'none'"],
          // No form-action: Chromium applies it to the redirect after consent, which goes to the client.
          'form-action': null,
          'script-src': null,
          'upgrade-insecure-requests': null,
        },
      },
    },
    isApiUrl,
  );
  await pathCors(app, {
    origins: config.webOrigins,
    // The token endpoint is called by the proxy only, never from a browser (decisions.md). The
    // metadata is public, and browser clients read it to configure themselves.
    // Download URLs too: the web app's PDF viewer reads them with fetch, in ranges. They are signed
    // capabilities, so letting the app's pages read them adds no access.
    allowed: (path) =>
      (isApiUrl(path) && path !== apiPaths.token && path !== apiPaths.revoke) ||
      path === apiPaths.oauthMetadata ||
      path.startsWith('/files/'),
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'Idempotency-Key', 'Range'],
    exposedHeaders: ['ETag', 'Retry-After', 'Accept-Ranges', 'Content-Range', 'Content-Length'],
    maxAge: 600,
  });
  // The API's routes are limited by the hook below, before authentication; rate-limit's own hook
  // on each of them would only find the request counted already, at the price of one more async
  // hook per request. Said before rate-limit is registered, whose onRoute hook reads it.
  app.addHook('onRoute', (route) => {
    if (isLimitedBeforeAuth(route.url ?? '')) route.config = { ...route.config, rateLimit: false };
  });
  return rateLimits(app, {
    max: config.apiRateLimit,
    timeWindow: 60_000,
    redis: shared.rateLimitStore,
  });
}

/**
 * The routes: sign-in pages, token and metadata, then the bearer-protected API (rate-limited and
 * authenticated by one hook), uploads, resumable uploads, assets, entities, review and /files.
 */
async function registerRoutes(
  app: FastifyInstance,
  ctx: PlatformContext,
  countApiRequest: Awaited<ReturnType<typeof rateLimits>>,
  metrics: PlatformMetrics | undefined,
) {
  const { config } = ctx;
  app.get(apiPaths.openapi, { schema: { hide: true } }, async () => app.swagger());

  // Cookies (the sign-in session and CSRF seed) only on the sign-in pages, which alone use them:
  // @fastify/cookie adds two hooks to every request of its scope.
  await app.register(async (pages) => {
    await pages.register(cookie);
    await pages.register(signInRoutes, { ctx });
  });
  await app.register(tokenRoutes, { ctx });
  await app.register(metadataRoutes, { ctx });
  // Everything under /v2/core needs a bearer token, unknown paths included (so they answer 401, not
  // 404, to a stranger), except the token endpoints and the API description.
  const authenticate = bearerAuthentication(ctx);
  // The API's rate limit is checked here, before the token, so that requests refused at
  // authentication count too (H3): a route's own limit hook would only run after this hook. It is
  // the same per-address budget as the routes' (one store), and a request is counted once.
  app.addHook('onRequest', (request, reply, done) => {
    const query = request.url.indexOf('?');
    const path = query === -1 ? request.url : request.url.slice(0, query);
    if (!isLimitedBeforeAuth(path)) return done();
    countApiRequest(request, reply, (refused) => {
      if (refused) return done(refused);
      let authenticating: Promise<void> | undefined;
      try {
        authenticating = authenticate(request);
      } catch (error) {
        return done(error as Error);
      }
      if (authenticating) authenticating.then(() => done(), done);
      else done();
    });
  });
  await app.register(meRoutes, { ctx });
  // Multipart bodies are parsed only where uploads arrive: @fastify/multipart adds two hooks to
  // every request of its scope (temporary-file cleanup, which streamed uploads do not even use).
  await app.register(async (uploads) => {
    await uploads.register(multipart, {
      limits: {
        // One more byte than allowed, so that an oversized file is noticed rather than silently cut.
        fileSize: config.maxUploadBytes + 1,
        // One more file than allowed, so that a second file part is refused by its name (H9).
        files: 2,
        fields: maxMultipartFields,
        fieldSize: 64 * 1024,
        parts: maxMultipartFields + 2,
        headerPairs: 100,
      },
    });
    if (metrics) countUploads(uploads, metrics);
    await uploads.register(assetUploadRoutes, { ctx });
  });
  await app.register(async (resumable) => {
    if (metrics) countResumableUploads(resumable, metrics);
    await resumable.register(resumableUploadRoutes, { ctx });
  });
  await app.register(assetRoutes, { ctx });
  const assetPage: AssetPageReader = (caller, visible, page) => visibleAssetPage(ctx, caller, visible, page);
  await app.register(entityRoutes, { ctx, assetPage });
  await app.register(reviewRoutes, { ctx, assetPage });
  await app.register(deliveryRoutes, { ctx });
}

/** Start-up names the backends in use (the database says itself, in openDatabase); never a secret. */
function logBackends(app: FastifyInstance, config: PlatformConfig) {
  const store = config.blobStore;
  const blobStore =
    store.kind === 'fs'
      ? `files in ${config.dataDir}/blobs`
      : `S3 bucket ${store.bucket} at ${store.endpoint ?? 'AWS'}`;
  const redis = config.redis ? `Redis at ${redisAddress(config.redis.url)}` : 'no Redis (limits in memory)';
  app.log.info(`blob store: ${blobStore}; ${redis}`);
}

const redisAddress = (url: string) => {
  const parsed = new URL(url);
  return `${parsed.hostname}:${parsed.port || '6379'}`;
};

/**
 * Uploads in flight, and the bytes of those stored (answered 201: the whole body was read), at the
 * answer's end or the connection's loss, whichever comes first.
 */
function countUploads(uploads: FastifyInstance, metrics: PlatformMetrics) {
  uploads.addHook('onRequest', (request, reply, done) => {
    const ended = metrics.uploadStarted();
    reply.raw.once('close', () =>
      ended(reply.statusCode === 201 ? Number(request.headers['content-length']) || 0 : 0),
    );
    done();
  });
}

/**
 * Resumable (tus) uploads in the same series: each request that brings bytes (PATCH, and POST with
 * creation-with-upload) is an upload in flight, and what it stored is how far it moved the upload's
 * offset (the answer's Upload-Offset less the request's), a cut request counting what was kept.
 */
function countResumableUploads(resumable: FastifyInstance, metrics: PlatformMetrics) {
  resumable.addHook('onRequest', (request, reply, done) => {
    if (request.method !== 'PATCH' && request.method !== 'POST') return done();
    const ended = metrics.uploadStarted();
    const from = Number(request.headers['upload-offset'] ?? 0) || 0;
    reply.raw.once('close', () => {
      const to = Number(reply.raw.getHeader('upload-offset'));
      ended(reply.raw.statusCode < 300 && to > from ? to - from : 0);
    });
    done();
  });
}
