import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fresh from 'fresh';
import type { AppConfig } from '../shared/api/app-config';
import { proxyPaths, signInParameter } from '../shared/api/proxy';
import { entityAt } from '../shared/entities/entity-kinds';
import type { ProxyConfig } from './env';
import { isOAuthPath } from './errors';
import { renderIndexPage, type ShellChoice } from './index-page';
import { sessionHintCookie } from './oauth-routes';
import type { PlatformKnowledge, PlatformView } from './platform-knowledge';

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

/** index.html as last read: each page answer reads it again only when a new build has replaced it. */
class IndexTemplate {
  #cached: { mtimeMs: number; size: number; text: string } | null = null;

  constructor(readonly file: string) {}

  /** Null while the app is not built. */
  async read(): Promise<string | null> {
    const info = await stat(this.file).catch(() => null);
    if (!info?.isFile()) return null;
    const cached = this.#cached;
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached.text;
    const text = await readFile(this.file, 'utf8');
    this.#cached = { mtimeMs: info.mtimeMs, size: info.size, text };
    return text;
  }
}

interface EncodedPage {
  etag: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

/**
 * The page comes in few variants (shell × what the platform offers), so each is compressed once, at the
 * levels the build uses for its own files, and kept; a changed configuration makes new ones.
 */
class EncodedPages {
  static readonly #max = 32;
  #pages = new Map<string, EncodedPage>();

  of(page: string): EncodedPage {
    let encoded = this.#pages.get(page);
    if (!encoded) {
      if (this.#pages.size >= EncodedPages.#max) this.#pages.clear();
      const identity = Buffer.from(page, 'utf8');
      encoded = {
        etag: `"${createHash('sha256').update(identity).digest('base64url').slice(0, 32)}"`,
        identity,
        br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        gzip: gzipSync(identity, { level: 9 }),
      };
      this.#pages.set(page, encoded);
    }
    return encoded;
  }
}

/**
 * What the first paint shows for this request (index-page.ts). The home's own shell only where the
 * platform is known to say who is signed in: without `/me` the app's home is another page; an entity
 * page's outline likewise only where the platform reads entities, and only with a session (without one
 * the app asks the person to sign in).
 */
function shellFor(request: FastifyRequest, path: string, view: PlatformView | null): ShellChoice {
  const signedIn = request.cookies[sessionHintCookie.name] === '1';
  const query = new URLSearchParams(request.url.split('?')[1] ?? '');
  const home = view?.capabilities.me === true ? 'home' : 'loading';
  const entity = entityAt(path);
  // Without entity reads the app's entity page is another (files uploaded from this browser only).
  const entityShell = signedIn && entity && view?.capabilities.entityReads === true;
  return {
    shell: path === '/' ? (signedIn ? home : 'landing') : entityShell ? { entity: entity.kind } : 'loading',
    signInPending: query.has(signInParameter),
    signedIn,
  };
}

/**
 * Installed on the root instance itself: its not-found handler is the whole server's SPA fallback.
 *
 * Stays whole: a flat table of the proxy's web routes (static files, settings, the index page and the SPA
 * fallback), each a few lines, sharing the template and the encoded pages.
 */
export async function installWebApp(
  app: FastifyInstance,
  config: ProxyConfig,
  knowledge: Pick<PlatformKnowledge, 'view' | 'settledView'>,
) {
  const assetsDir = join(config.distDir, 'assets') + sep;
  const template = new IndexTemplate(join(config.distDir, 'index.html'));
  const encodedPages = new EncodedPages();

  await app.register(fastifyStatic, {
    root: config.distDir,
    wildcard: true,
    redirect: false,
    dotfiles: 'ignore',
    // index.html is the page template: every page is answered by sendPage, never the file as it is.
    index: false,
    allowedPath: (pathName) => !/^\/index\.html(\.(br|gz))?$/.test(pathName),
    // The build writes .br and .gz beside each file (vite.config.ts); browsers that accept one get it.
    preCompressed: true,
    cacheControl: false,
    // The app may be built after the proxy starts: no warning for a missing folder (GET / explains).
    suppressWarning: true,
    setHeaders: (reply, path) => {
      // Vite names files under assets/ by content hash; everything else must be revalidated.
      reply.header(
        'cache-control',
        path.startsWith(assetsDir) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });

  app.get(proxyPaths.appConfig, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return appConfigOf(config, await knowledge.view());
  });

  /**
   * The app's page, painted before any script runs and carrying the app's settings (index-page.ts). It
   * varies with the session hint and must be revalidated: the settings in it may change.
   */
  async function sendPage(request: FastifyRequest, reply: FastifyReply, path: string) {
    const html = await template.read();
    if (html === null) {
      return reply
        .code(503)
        .header('cache-control', 'no-store')
        .type('text/plain; charset=utf-8')
        .send('The web app is not built yet. Run `npm run build`, then reload this page.\n');
    }
    const view = knowledge.settledView();
    const page = encodedPages.of(
      renderIndexPage(html, shellFor(request, path, view), view ? appConfigOf(config, view) : null),
    );
    reply
      .header('cache-control', 'no-cache')
      .header('vary', 'accept-encoding, cookie')
      .header('etag', page.etag)
      .type('text/html; charset=utf-8');
    if (fresh(request.headers, { etag: page.etag })) return reply.code(304).send();
    const encoding = negotiate(request.headers['accept-encoding'] ?? '', ['br', 'gzip']);
    if (encoding) reply.header('content-encoding', encoding);
    return reply.send(encoding ? page[encoding] : page.identity);
  }

  // Ahead of the static files' wildcard, which would take / for a folder.
  app.get('/', (request, reply) => sendPage(request, reply, '/'));

  app.setNotFoundHandler(async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (wantsPage(request, path)) return sendPage(request, reply, path);
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
