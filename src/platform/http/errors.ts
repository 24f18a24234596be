import { STATUS_CODES } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FieldError, Problem } from '../../shared/api/problem';
import { outageLog, outageOf, outageRetryAfterSeconds } from './backend-outages';

/** How a platform logs its backends' outages (each its own: several run in one process in tests). */
type OutageLog = ReturnType<typeof outageLog>;

/**
 * The HTML page of an error on the sign-in pages. Passed in by the app (the sign-in pages' own look,
 * oauth/pages.ts), so that this module, which every route imports, imports no route module back.
 */
export type ErrorPage = (title: string, message: string) => string;

/**
 * One error hierarchy for the whole platform, one serializer per audience:
 * the API answers RFC 9457 problem JSON, the token and revocation endpoints RFC 6749 5.2 JSON,
 * and the sign-in pages an HTML page. Nothing else ever reaches a client: 5xx are masked.
 */
export type ErrorFormat = 'problem' | 'oauth' | 'page';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** How errors of this route are written; the API's problem JSON when absent. */
    errorFormat?: ErrorFormat;
  }
}

type Headers = Record<string, string>;

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly errors?: FieldError[],
    readonly headers: Headers = {},
  ) {
    super(detail);
  }
}

export const notFound = (detail = 'No such resource.') => new ApiError(404, 'not_found', detail);
export const forbidden = (detail: string) => new ApiError(403, 'forbidden', detail);
export const invalidToken = (detail: string) =>
  new ApiError(401, 'invalid_token', detail, undefined, {
    'www-authenticate': `Bearer error="invalid_token", error_description="${detail.replace(/"/g, "'")}"`,
  });
export const insufficientScope = (needed: string) =>
  new ApiError(403, 'insufficient_scope', `This request needs the "${needed}" scope.`, undefined, {
    'www-authenticate': `Bearer error="insufficient_scope", scope="${needed}"`,
  });
export const validationFailed = (errors: FieldError[]) =>
  new ApiError(422, 'validation_failed', errors.map((e) => `${e.field}: ${e.message}`).join('; '), errors);

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'invalid_scope'
  // RFC 6749 4.1.2.1; a 503 from the token or revocation endpoint (RFC 7009 2.2.1): try again.
  | 'temporarily_unavailable';

export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
    readonly headers: Headers = {},
  ) {
    super(description);
  }
}

/** An error shown as a page on the sign-in service, where redirecting would be unsafe. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}

interface Normalized {
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
  headers: Headers;
}

const fastifyCodes: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'malformed_request',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'malformed_request',
  FST_ERR_CTP_INVALID_JSON_BODY: 'malformed_request',
};

function normalize(error: unknown, request: FastifyRequest, logOutage?: OutageLog): Normalized {
  if (error instanceof ApiError) {
    return {
      status: error.status,
      code: error.code,
      detail: error.message,
      errors: error.errors,
      headers: error.headers,
    };
  }
  const fe = error as FastifyError & { validation?: { instancePath?: string; message?: string }[] };
  if (fe?.validation) {
    const where = fe.validationContext ?? 'body';
    // A path parameter that does not validate names nothing that exists (U11).
    if (where === 'params')
      return { status: 404, code: 'not_found', detail: 'No such resource.', headers: {} };
    const errors = fe.validation.map((v) => ({
      field: (v.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.') || where,
      message: v.message ?? 'is invalid',
    }));
    return { ...normalize(validationFailed(errors), request), status: 422 };
  }
  const outage = outageOf(error);
  if (outage) {
    // A backend away is no bug of ours: a few lines without a stack trace, and the client retries.
    logOutage?.(request.log, outage, error);
    return {
      status: 503,
      code: 'service_unavailable',
      detail: 'The service is briefly unavailable; nothing was changed. Try again in a few seconds.',
      headers: { 'retry-after': String(outageRetryAfterSeconds) },
    };
  }
  const status = typeof fe?.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    const code =
      status === 429
        ? 'rate_limited'
        : (fastifyCodes[fe.code] ?? (status === 400 ? 'malformed_request' : 'request_error'));
    const detail =
      status === 413
        ? 'The request body is too large.'
        : status === 415
          ? 'This content type is not accepted here.'
          : status === 429
            ? 'Too many requests; try again later.'
            : 'The request could not be read.';
    return { status, code, detail, headers: {} };
  }
  request.log.error({ err: error }, 'unhandled error');
  return { status: 500, code: 'internal_error', detail: 'Something went wrong on our side.', headers: {} };
}

export function problemOf(n: Pick<Normalized, 'status' | 'code' | 'detail' | 'errors'>): Problem {
  return {
    type: 'about:blank',
    title: STATUS_CODES[n.status] ?? 'Error',
    status: n.status,
    detail: n.detail,
    code: n.code,
    ...(n.errors ? { errors: n.errors } : {}),
  };
}

interface ErrorWriting {
  errorPage: ErrorPage;
  logOutage?: OutageLog;
}

function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply, writing: ErrorWriting) {
  const { errorPage, logOutage } = writing;
  const format = request.routeOptions.config?.errorFormat ?? 'problem';
  if (error instanceof PageError) {
    return reply
      .code(error.status)
      .type('text/html; charset=utf-8')
      .send(errorPage(error.title, error.message));
  }
  if (error instanceof OAuthError) {
    return reply
      .code(error.status)
      .headers({ 'cache-control': 'no-store', ...error.headers })
      .type('application/json')
      .send({ error: error.error, error_description: error.message });
  }
  const n = normalize(error, request, logOutage);
  if (format === 'oauth') {
    // Anything that goes wrong before the token steps run is still an RFC 6749 error, never a stack trace.
    const oauthError =
      n.status === 500 ? 'server_error' : n.status === 503 ? 'temporarily_unavailable' : 'invalid_request';
    return reply
      .code(n.status === 422 ? 400 : n.status)
      .headers(n.status === 503 ? n.headers : {})
      .header('cache-control', 'no-store')
      .type('application/json')
      .send({ error: oauthError, error_description: n.detail });
  }
  if (format === 'page') {
    return reply
      .code(n.status)
      .headers(n.status === 503 ? n.headers : {})
      .type('text/html; charset=utf-8')
      .send(errorPage(problemOf(n).title, n.detail));
  }
  // After a 413 the rest of the body is unread: close the connection rather than drain it.
  if (n.status === 413) reply.header('connection', 'close');
  return reply.code(n.status).headers(n.headers).type('application/problem+json').send(problemOf(n));
}

export function installErrorHandling(app: FastifyInstance, errorPage: ErrorPage) {
  const logOutage = outageLog();
  app.setErrorHandler((error, request, reply) => sendError(error, request, reply, { errorPage, logOutage }));
  app.setNotFoundHandler((request, reply) =>
    sendError(
      new ApiError(404, 'not_found', `No route ${request.method} ${request.url.split('?')[0]}.`),
      request,
      reply,
      { errorPage },
    ),
  );
}
