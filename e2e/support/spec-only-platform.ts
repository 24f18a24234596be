/**
 * A fake investment platform for tests, written from the spec alone (what
 * `docs/platform-contract.md` says it shows): it offers what the spec shows and nothing more (no
 * /me, no file-type list, no problem JSON, no OpenAPI or .well-known metadata). Where the spec says
 * "not shown", a switch picks the answer, or the plain choice a Rails API would make is taken and
 * said in a comment. It shares no code with the programs in src/: the point is an independent reading
 * of the spec. The shapes it answers are built from the spec's examples, transcribed once for every
 * platform double in src/testing/spec-examples.ts.
 * Everything is in memory; uploaded files sit in a temporary directory removed on close.
 *
 * As a child process: `node --import tsx e2e/support/spec-only-platform.ts` prints `listening <url>`
 * once it accepts requests, and stops on SIGINT/SIGTERM. Its environment (defaults in brackets):
 *
 *   SPEC_PLATFORM_CLIENTS            required: JSON `[{"client_id", "client_secret", "redirect_uris": [...]}]`
 *   SPEC_PLATFORM_HOST [127.0.0.1], SPEC_PLATFORM_PORT [0 = any free port]
 *   SPEC_PLATFORM_PUBLIC_URL         [http://host:port] base_url = auth_url, used in download URLs
 *   SPEC_PLATFORM_PASSWORD           [spec-password] every fixed person's password
 *   SPEC_PLATFORM_ACCESS_TOKEN_TTL   [3600] seconds, enforced but never announced
 *   SPEC_PLATFORM_CORS_ORIGINS       [none] comma-separated origins allowed on the API
 *   SPEC_PLATFORM_CORS_HEADERS       [Authorization,Content-Type] comma-separated, answered to preflights
 *   SPEC_PLATFORM_UPDATE_ANSWER      [204] or 200: what PUT /v2/core/assets/:id answers
 *   SPEC_PLATFORM_ENTITY_SHAPE       [missing] sideloaded | top-level | links-only | missing
 *   SPEC_PLATFORM_ASSET_LIST         [envelope] or array: what a links-only assets URL answers
 *   SPEC_PLATFORM_REFRESH, SPEC_PLATFORM_REVOKE, SPEC_PLATFORM_RENDITIONS   [off] on | off (or 1 | 0)
 *   SPEC_PLATFORM_MAX_UPLOAD_BYTES   [104857600]
 *
 * There is no health route (the spec has none): `GET /auth/login/oauth/authorize` answers 400 once
 * the platform is up, which is enough for a readiness probe.
 **/
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import cookie from '@fastify/cookie';
import cors from '@fastify/cors';
import formbody from '@fastify/formbody';
import multipart from '@fastify/multipart';
import Fastify, { type FastifyError } from 'fastify';
import { railsErrorAnswer } from '../../src/testing/spec-examples';
import { assetRoutes } from './spec-only/asset-routes';
import { AssetStore } from './spec-only/asset-store';
import { Downloads } from './spec-only/downloads';
import { entityRoutes } from './spec-only/entity-routes';
import { type HttpError, recordedHeaders, sendError } from './spec-only/http';
import { oauthRoutes } from './spec-only/oauth-routes';
import { OAuthStore } from './spec-only/oauth-store';
import { optionsFromEnv, type SpecOnlyPlatformOptions, withDefaults } from './spec-only/options';

export {
  type AssetableType,
  type SpecEntity,
  specDefaultPassword,
  specEntities,
  specFileTypes,
  specPeople,
} from './spec-only/fixtures';
export type { EntityShape, SpecClient, SpecOnlyPlatformOptions } from './spec-only/options';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent. */
  url: string;
  path: string;
  /** Lower-case names; Authorization keeps only its scheme (`Bearer [redacted]`). */
  headers: Record<string, string>;
}

export interface SpecOnlyPlatform {
  /** base_url and auth_url, without a trailing slash. */
  url: string;
  /** Every request received, oldest first, preflights included. */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export async function startSpecOnlyPlatform(input: SpecOnlyPlatformOptions): Promise<SpecOnlyPlatform> {
  const options = withDefaults(input);
  const assets = await AssetStore.open();
  const tokens = new OAuthStore(options.clients, options.accessTokenTtlSeconds * 1000, options.clock);
  let url = '';
  const downloads = new Downloads(() => url, options.clock);
  const requests: RecordedRequest[] = [];

  // A test fake stops when told: a keep-alive connection whose last response is still finishing
  // (a streamed file the client has already read) would otherwise hold close() for the keep-alive timeout.
  const app = Fastify({ logger: false, forceCloseConnections: true });
  // Added before CORS, which answers preflights in its own onRequest hook: those are recorded too.
  app.addHook('onRequest', async (request) => {
    const path = request.url.split('?')[0] ?? request.url;
    requests.push({ method: request.method, url: request.url, path, headers: recordedHeaders(request) });
  });
  await app.register(cors, {
    // The browser calls the API directly; the sign-in pages and the token endpoints are not for scripts.
    delegator: (request, callback) => {
      const forBrowsers = !request.url.startsWith('/v2/core/oauth/') && !request.url.startsWith('/auth/');
      callback(
        null,
        forBrowsers
          ? {
              origin: options.corsOrigins,
              methods: ['GET', 'POST', 'PUT', 'DELETE'],
              allowedHeaders: options.corsHeaders,
            }
          : { origin: false },
      );
    },
  });
  await app.register(cookie);
  await app.register(formbody);
  await app.register(multipart, { limits: { fileSize: options.maxUploadBytes } });
  app.setErrorHandler<FastifyError | HttpError>((error, request, reply) => sendError(request, reply, error));
  app.setNotFoundHandler((_request, reply) => reply.code(404).send(railsErrorAnswer(['Not found'])));

  oauthRoutes(app, tokens, options);
  assetRoutes(app, { assets, tokens, downloads, options });
  downloads.routes(app, assets);
  entityRoutes(app, { assets, tokens, options });

  try {
    await app.listen({ host: options.host, port: options.port });
  } catch (error) {
    await assets.close();
    throw error;
  }
  const { port } = app.server.address() as AddressInfo;
  url = options.publicUrl?.replace(/\/$/, '') ?? `http://${options.host}:${port}`;
  return {
    url,
    requests,
    close: async () => {
      await app.close();
      await assets.close();
    },
  };
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    const platform = await startSpecOnlyPlatform(optionsFromEnv(process.env));
    console.log(`listening ${platform.url}`);
    const stop = () => void platform.close().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
