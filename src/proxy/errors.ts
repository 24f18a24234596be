import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthErrorBody } from '../shared/api/problem';

/**
 * The proxy answers its /oauth endpoints only with RFC 6749 5.2 JSON and everything else with plain
 * text. Nothing else reaches a browser: no stack trace, no upstream body, no 5xx detail.
 */
export class OAuthFailure extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description ?? error);
  }

  get body(): OAuthErrorBody {
    return this.description === undefined
      ? { error: this.error }
      : { error: this.error, error_description: this.description };
  }
}

export const isOAuthPath = (url: string) => url.startsWith('/oauth/');

export function sendOAuthError(reply: FastifyReply, failure: OAuthFailure) {
  // The code and status say why without quoting anything the request or the platform carried.
  reply.log.info({ oauthError: failure.error, statusCode: failure.status }, 'oauth request refused');
  return reply
    .code(failure.status)
    .headers({ 'cache-control': 'no-store', pragma: 'no-cache', ...failure.headers })
    .type('application/json; charset=utf-8')
    .send(failure.body);
}

/** Fastify's own 4xx (body too large, unknown content type, rate limit) in the proxy's words. */
function fromFastify(error: FastifyError): OAuthFailure | undefined {
  const status = error.statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  if (status === 429) {
    return new OAuthFailure(429, 'temporarily_unavailable', 'Too many token requests; try again later.');
  }
  if (status === 413) {
    // The rest of the body is unread: close the connection rather than drain it.
    return new OAuthFailure(413, 'invalid_request', 'The request body is too large.', {
      connection: 'close',
    });
  }
  if (status === 415) {
    return new OAuthFailure(415, 'invalid_request', 'Send application/x-www-form-urlencoded.');
  }
  return new OAuthFailure(status, 'invalid_request', 'The request could not be read.');
}

function handleError(error: unknown, request: FastifyRequest, reply: FastifyReply) {
  const failure = error instanceof OAuthFailure ? error : fromFastify(error as FastifyError);
  if (!failure) {
    // Only the error's kind is logged: messages of unknown errors might quote request data.
    const e = error as Partial<FastifyError>;
    request.log.error({ errName: e?.name, errCode: e?.code }, 'unhandled error');
  }
  const path = request.url.split('?')[0] ?? '';
  if (isOAuthPath(path)) {
    return sendOAuthError(reply, failure ?? new OAuthFailure(500, 'server_error'));
  }
  const status = failure?.status ?? 500;
  if (failure?.headers.connection) reply.header('connection', 'close');
  return reply
    .code(status)
    .type('text/plain; charset=utf-8')
    .send(status === 500 ? 'Something went wrong.\n' : `${STATUS_CODES[status] ?? 'Error'}.\n`);
}

export function installErrorHandler(app: FastifyInstance) {
  app.setErrorHandler((error, request, reply) => handleError(error, request, reply));
}
