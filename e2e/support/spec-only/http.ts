import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { oauthErrorAnswer, railsErrorAnswer } from '../../../src/testing/spec-examples';
import type { OAuthStore, Scope } from './oauth-store';

/**
 * Errors are "not shown" in the spec (section 7). This fake answers what a Rails API conventionally
 * does: the status, and `{"errors": ["human message"]}` — no problem JSON, no error codes.
 */
export class HttpError extends Error {
  readonly messages: string[];

  constructor(
    readonly statusCode: number,
    messages: string | string[],
    readonly headers: Record<string, string> = {},
  ) {
    super([messages].flat().join('; '));
    this.messages = [messages].flat();
  }
}

export const notFound = () => new HttpError(404, 'Not found');

export interface Caller {
  email: string;
  scope: Scope;
}

/**
 * The spec does not show how a token is attached; `Authorization: Bearer` (RFC 6750) is the
 * conventional way. Scope `basic` reads, `full` also writes.
 */
export function authenticate(request: FastifyRequest, tokens: OAuthStore, access: 'read' | 'write'): Caller {
  const match = /^Bearer (\S+)$/i.exec(request.headers.authorization ?? '');
  const caller = match?.[1] ? tokens.authenticate(match[1]) : undefined;
  if (!caller) {
    throw new HttpError(401, 'Invalid or expired access token', {
      'www-authenticate': 'Bearer error="invalid_token"',
    });
  }
  if (access === 'write' && caller.scope !== 'full') {
    throw new HttpError(403, 'This token has the basic scope, which cannot change anything');
  }
  return caller;
}

/** OAuth endpoints answer errors in RFC 6749's shape, everything else in the conventional one. */
export function sendError(request: FastifyRequest, reply: FastifyReply, error: FastifyError | HttpError) {
  const status =
    error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500) console.error(error);
  if (error instanceof HttpError) reply.headers(error.headers);
  if (request.url.startsWith('/v2/core/oauth/')) {
    return reply.code(status).send(oauthErrorAnswer(status === 500 ? 'server_error' : 'invalid_request'));
  }
  const messages = error instanceof HttpError ? error.messages : [error.message];
  return reply.code(status).send(railsErrorAnswer(status === 500 ? ['Internal server error'] : messages));
}

export function recordedHeaders(request: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  // The scheme stays, so a test can see that a token was sent and how; the token itself does not.
  if (headers.authorization) headers.authorization = `${headers.authorization.split(' ')[0]} [redacted]`;
  return headers;
}
