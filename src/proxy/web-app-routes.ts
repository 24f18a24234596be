import { access } from 'node:fs/promises';
import { join, sep } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppConfig } from '../shared/api/app-config';
import type { ProxyConfig } from './env';
import { isOAuthPath } from './errors';
import { proxyPaths } from './oauth-routes';
import type { PlatformView } from './platform-knowledge';

/** What the web app reads at start, so that one build serves any platform. Never the secret (P1). */
export function appConfigOf(config: ProxyConfig, platform: PlatformView): AppConfig {
  return {
    platformBaseUrl: config.platformBaseUrl,
    platformAuthUrl: config.platformAuthUrl,
    apiBaseUrl: platform.viaProxy ? config.publicOrigin : config.platformBaseUrl,
    clientId: config.clientId,
    scope: config.scope,
    redirectUri: config.redirectUri,
    tokenEndpoint: proxyPaths.token,
    revokeEndpoint: proxyPaths.revoke,
    entityPaths: config.entityPaths,
    capabilities: platform.capabilities,
  };
}

/**
 * The pages' Content-Security-Policy (P11): scripts only from our own origin, no inline script or style.
 * The platform's origin is allowed where the app talks to it: API calls and uploads (connect-src) and
 * images through download URLs (img-src). The sign-in service is reached by navigation, which CSP does
 * not restrict; form-action names it in case the app ever posts a form there.
 */
export function cspDirectives(config: ProxyConfig): Record<string, string[]> {
  const platform = new URL(config.platformBaseUrl).origin;
  const auth = new URL(config.platformAuthUrl).origin;
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'"],
    'script-src-attr': ["'none'"],
    'style-src': ["'self'"],
    'img-src': ["'self'", 'data:', 'blob:', platform],
    'font-src': ["'self'"],
    'connect-src': ["'self'", platform],
    'object-src': ["'none'"],
    'base-uri': ["'none'"],
    'frame-ancestors': ["'none'"],
    'form-action': ["'self'", auth],
  };
  // On http it would send the browser to https addresses of a local platform that does not serve them.
  if (config.publicOrigin.startsWith('https:')) directives['upgrade-insecure-requests'] = [];
  return directives;
}

/** A page the browser navigates to (not a script or image it fetches), so the SPA's index answers it. */
function wantsPage(request: FastifyRequest, path: string) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (isOAuthPath(path)) return false;
  return path === '/' || (request.headers.accept ?? '').includes('text/html');
}

/** Installed on the root instance itself: its not-found handler is the whole server's SPA fallback. */
export async function installWebApp(
  app: FastifyInstance,
  config: ProxyConfig,
  platformView: () => Promise<PlatformView>,
) {
  const assetsDir = join(config.distDir, 'assets') + sep;
  const indexFile = join(config.distDir, 'index.html');

  await app.register(fastifyStatic, {
    root: config.distDir,
    wildcard: true,
    redirect: false,
    dotfiles: 'ignore',
    // The build writes .br and .gz beside each file (vite.config.ts); browsers that accept one get it.
    preCompressed: true,
    cacheControl: false,
    // The app may be built after the proxy starts: no warning for a missing folder (GET / explains).
    suppressWarning: true,
    setHeaders: (reply, path) => {
      // Vite names files under assets/ by content hash; everything else (index.html) must be revalidated.
      reply.header(
        'cache-control',
        path.startsWith(assetsDir) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });

  app.get(proxyPaths.appConfig, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return appConfigOf(config, await platformView());
  });

  async function sendIndex(reply: FastifyReply) {
    const built = await access(indexFile).then(
      () => true,
      () => false,
    );
    if (!built) {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send('The web app is not built yet. Run `npm run build`, then reload this page.\n');
    }
    return reply.sendFile('index.html');
  }

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (wantsPage(request, path)) return sendIndex(reply);
    if (isOAuthPath(path)) {
      return reply
        .code(404)
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send({ error: 'invalid_request', error_description: 'No such endpoint.' });
    }
    return reply.code(404).type('text/plain; charset=utf-8').send('Not found.\n');
  });
}
