import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions } from 'fastify';
import { problemOf } from './errors';

/** Read by config/env.ts from HEADERS_TIMEOUT_MS, REQUEST_TIMEOUT_MS, IDLE_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS. */
export interface ConnectionTimeouts {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  idleTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/**
 * How long a connection may take over each step (H8), as Fastify and Node options:
 * - headers: the request line and headers must be in within `headersTimeoutMs`;
 * - request: the whole request, body included, within `requestTimeoutMs` (also the upload time
 *   limit after which an Idempotency-Key still in progress is given up);
 * - idle: a connection with no byte either way for `idleTimeoutMs` is closed;
 * - keep-alive: an idle kept-alive connection waits `keepAliveTimeoutMs` for its next request.
 * Uploads also have a minimum rate (upload-guard.ts). Timeouts answer 408 in problem JSON.
 */
export function connectionOptions(http: ConnectionTimeouts) {
  return {
    connectionTimeout: http.idleTimeoutMs,
    keepAliveTimeout: http.keepAliveTimeoutMs,
    requestTimeout: http.requestTimeoutMs,
    http: {
      headersTimeout: http.headersTimeoutMs,
      requestTimeout: http.requestTimeoutMs,
      // Node looks for expired headers and requests this often (30 s by default): a quarter of the
      // headers timeout keeps the actual timeout close to the configured one.
      connectionsCheckingInterval: Math.min(30_000, Math.ceil(http.headersTimeoutMs / 4)),
    },
    clientErrorHandler: answerClientError,
  } satisfies Partial<FastifyHttpOptions<Server>>;
}

/**
 * Errors Node meets before a request reaches Fastify (a timeout, an unparsable request): answered
 * in problem JSON like every other API error, instead of Fastify's own JSON shape.
 */
function answerClientError(error: NodeJS.ErrnoException, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, detail] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request_timeout', 'The request did not arrive in time.']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'The request headers are too large.']
        : [400, 'malformed_request', 'The request could not be read.'];
  // Only where no answer has begun (Node's own test, on the response it keeps on the socket): a
  // request already being answered is simply cut off.
  const answering = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !answering?.headersSent) {
    const body = JSON.stringify(problemOf({ status, code, detail }));
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
