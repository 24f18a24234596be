import { Transform } from 'node:stream';
import replyFrom from '@fastify/reply-from';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resumableUploadsPath } from '../shared/api/resumable-uploads';
import type { ProxyConfig } from './env';

/** The part of the platform's API the proxy forwards: everything under /v2/core but its OAuth endpoints. */
export const forwardedPrefix = '/v2/core/';
const oauthPrefix = '/v2/core/oauth/';

/**
 * Request headers that reach the platform; everything else stays here. Cookies above all (P7): the
 * proxy's own refresh cookie must never leave it. Hop-by-hop headers are connection details.
 */
const requestHeadersForwarded = [
  'accept',
  'accept-language',
  'authorization',
  'content-length',
  'content-type',
  'idempotency-key',
  'if-match',
  'if-none-match',
  'user-agent',
  // tus (resumable uploads, src/shared/api/resumable-uploads.ts).
  'tus-resumable',
  'upload-offset',
  'upload-length',
  'upload-defer-length',
  'upload-metadata',
  'upload-concat',
  'upload-checksum',
];

/** Response headers that reach the browser; never the platform's cookies (P7). */
const responseHeadersForwarded = [
  'cache-control',
  'content-encoding',
  'content-language',
  'content-length',
  'content-type',
  'etag',
  'last-modified',
  'location',
  'retry-after',
  'vary',
  'www-authenticate',
  // tus: the protocol's answers, which tus clients read (discovery, offsets, expiry).
  'tus-resumable',
  'tus-version',
  'tus-extension',
  'tus-max-size',
  'tus-checksum-algorithm',
  'upload-offset',
  'upload-length',
  'upload-expires',
  'upload-metadata',
  'upload-defer-length',
];

/**
 * A `Location` of the platform's own origin (a tus upload's URL, when the platform answers it
 * absolute) becomes the same path on the proxy, so that the app's next request comes here too.
 */
function sameOriginLocation(
  headers: Record<string, string | string[]>,
  platform: URL,
  basePath: string,
): Record<string, string | string[]> {
  const location = headers.location;
  if (typeof location !== 'string') return headers;
  let url: URL;
  try {
    url = new URL(location, platform);
  } catch {
    return headers;
  }
  if (url.origin !== platform.origin || !url.pathname.startsWith(`${basePath}${forwardedPrefix}`))
    return headers;
  return { ...headers, location: `${url.pathname.slice(basePath.length)}${url.search}` };
}

const pick = (headers: Record<string, unknown>, names: readonly string[]) => {
  const picked: Record<string, string | string[]> = {};
  for (const name of names) {
    const value = headers[name];
    if (typeof value === 'string' || Array.isArray(value)) picked[name] = value as string | string[];
  }
  return picked;
};

/** What answering needs of a reply, whichever server type reply-from's callback hands over. */
interface Answer {
  code(status: number): Answer;
  header(name: string, value: string): Answer;
  type(contentType: string): Answer;
  send(body: unknown): unknown;
}

function problem(reply: Answer, status: number, code: string, title: string, detail: string) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('application/problem+json')
    .send({ type: 'about:blank', title, status, detail, code });
}

/** Counts the body as it passes and stops it past the limit (a chunked body has no Content-Length). */
function capped(source: NodeJS.ReadableStream, maxBytes: number): Transform {
  let seen = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > maxBytes) done(new BodyTooLarge());
      else done(null, chunk);
    },
  });
  source.on('error', (error) => counter.destroy(error));
  return source.pipe(counter);
}

class BodyTooLarge extends Error {}

/**
 * Why a path may not be forwarded, judged on the path as the platform will read it (percent-decoded):
 * a dot segment (`.`, `..`, encoded or not, or behind a backslash) could take a request that passed
 * the checks here somewhere else once normalised, and the token endpoints are the proxy's own.
 */
function refusalOf(path: string): { status: 400 | 404; detail: string } | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(path);
  } catch {
    return { status: 400, detail: 'The path is not valid percent-encoding.' };
  }
  if (decoded.split(/[/\\]/).some((segment) => segment === '.' || segment === '..'))
    return { status: 400, detail: 'Paths with "." or ".." segments are not forwarded.' };
  // The token endpoints belong to the proxy's own exchange: a browser never reaches them.
  if (!decoded.startsWith(forwardedPrefix) || decoded.startsWith(oauthPrefix))
    return { status: 404, detail: 'No such endpoint.' };
  return undefined;
}

/**
 * `PLATFORM_API_VIA_PROXY`: the app's API calls go to the proxy, which sends them on to the platform
 * (@fastify/reply-from over undici), so a platform whose CORS does not admit the app still serves it.
 * Bodies stream both ways and are never held whole: a 100 MB upload passes through in small pieces.
 *
 * Stays whole: the forwarding's routes share one scope (its body parser, rate budget and reply-from), and
 * are a flat table in that scope's plugin below.
 */
export async function installApiForwarding(app: FastifyInstance, config: ProxyConfig) {
  const platform = new URL(config.platformBaseUrl);
  const basePath = platform.pathname.replace(/\/+$/, '');

  // Stays whole: one scope for the forwarding, so that its body parser and rate budget stay out of the
  // proxy's own routes; inside it, a flat table of routes.
  await app.register(async (api) => {
    // The body is not parsed here: whatever arrives is passed on as a stream.
    api.removeAllContentTypeParsers();
    api.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    await api.register(replyFrom, {
      base: platform.origin,
      disableRequestLogging: true,
      undici: { connections: 64, pipelining: 1, keepAliveTimeout: 30_000 },
    });
    const limit = api.rateLimit({ max: config.apiRateLimit, timeWindow: 60_000 });

    const forward = async (request: FastifyRequest, reply: FastifyReply) => {
      const refused = refusalOf(request.url.split('?')[0] ?? '');
      if (refused?.status === 400)
        return problem(reply, 400, 'malformed_request', 'Bad Request', refused.detail);
      if (refused) return problem(reply, 404, 'not_found', 'Not Found', refused.detail);
      const declared = Number(request.headers['content-length'] ?? 0);
      if (declared > config.maxBodyBytes) {
        return problem(
          reply,
          413,
          'body_too_large',
          'Payload Too Large',
          'The request is larger than the proxy forwards.',
        );
      }
      if (request.body) request.body = capped(request.body as NodeJS.ReadableStream, config.maxBodyBytes);
      return reply.from(`${basePath}${request.url}`, {
        // An inactivity limit: undici restarts it as each piece of an upload goes out.
        timeout: config.apiTimeoutMs,
        rewriteRequestHeaders: (incoming, headers) => {
          const forwardedFor = headers['x-forwarded-for'];
          return {
            ...pick(headers, requestHeadersForwarded),
            host: platform.host,
            // The platform logs the API call under the proxy's id for it.
            'x-request-id': incoming.id,
            // A platform that trusts this proxy can still tell its users apart (rate limits per person).
            'x-forwarded-for': forwardedFor ? `${String(forwardedFor)}, ${incoming.ip}` : incoming.ip,
          };
        },
        rewriteHeaders: (headers) =>
          sameOriginLocation(pick(headers, responseHeadersForwarded), platform, basePath),
        onError: (failed, { error }) => {
          if (error instanceof BodyTooLarge || (error as { cause?: unknown }).cause instanceof BodyTooLarge) {
            return void problem(
              failed,
              413,
              'body_too_large',
              'Payload Too Large',
              'The request is larger than the proxy forwards.',
            );
          }
          const timedOut = (error as { statusCode?: number }).statusCode === 504;
          failed.log.warn({ status: timedOut ? 504 : 502 }, 'forwarding to the platform failed');
          void problem(
            failed,
            timedOut ? 504 : 502,
            timedOut ? 'platform_timeout' : 'platform_unreachable',
            timedOut ? 'Gateway Timeout' : 'Bad Gateway',
            timedOut ? 'The platform did not answer in time.' : 'The platform could not be reached.',
          );
        },
      });
    };

    // tus discovery and its preflight-free OPTIONS (the app is same-origin with the proxy).
    api.route({
      method: 'OPTIONS',
      url: resumableUploadsPath,
      onRequest: limit,
      handler: forward,
    });
    api.route({
      method: 'OPTIONS',
      url: `${resumableUploadsPath}/*`,
      onRequest: limit,
      handler: forward,
    });
    api.route({
      method: ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH'],
      url: `${forwardedPrefix}*`,
      onRequest: limit,
      // The cap is enforced while streaming (capped), not by Fastify, which would read the body first.
      bodyLimit: Number.MAX_SAFE_INTEGER,
      handler: forward,
    });
  });
}
