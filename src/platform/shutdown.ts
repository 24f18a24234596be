import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';
import { markStopping } from './health';

/** How often connections that finished their request are closed while draining. */
const idleSweepMs = 250;

/**
 * SIGTERM (or SIGINT) stops the instance gracefully: /readyz answers 503 at once, the port takes no
 * new connection, and the requests in flight, uploads and downloads included, run to their end
 * within `graceMs`; each connection is closed as soon as its request is answered, and the answer
 * says so (`Connection: close`). Then the platform closes (renders stop, their thumbnails left
 * pending; the database and Redis let go) and the process exits. The end of the grace, or a second signal, cuts what is still in flight.
 */
export function stopOnSignals(app: FastifyInstance, graceMs: number) {
  let cut: (() => void) | undefined;
  const stopKeepingAlive = closeAfterAnswerOnceStopping(app);
  const stop = (signal: string) => {
    if (cut) {
      app.log.warn(`${signal} again: cutting the requests still in flight`);
      return cut();
    }
    app.log.info(`${signal}: stopping; no new connections, requests in flight have ${graceMs / 1000} s`);
    const server = app.server;
    cut = () => server.closeAllConnections();
    stopKeepingAlive();
    void drain(app, graceMs, cut)
      .then(() => app.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          app.log.error({ err: error }, 'stopping failed');
          process.exit(1);
        },
      );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/**
 * While stopping, every answer not begun yet says `Connection: close`, and its connection closes
 * once it is sent. A load balancer keeping connections alive (nginx's `keepalive`) then never
 * sends another request on one that the instance is about to close: a request lost that way has
 * been sent, so nginx would not try it on another instance (it never resends a request whose
 * body it streamed, `proxy_request_buffering off`), and its client would get a 502.
 */
function closeAfterAnswerOnceStopping(app: FastifyInstance) {
  const answering = new Set<ServerResponse>();
  let stopping = false;
  // Before Fastify's own listener, so that no answer can begin before this has run.
  app.server.prependListener('request', (_request: IncomingMessage, response: ServerResponse) => {
    if (stopping) response.shouldKeepAlive = false;
    else {
      answering.add(response);
      response.once('close', () => answering.delete(response));
    }
  });
  return () => {
    stopping = true;
    for (const response of answering) if (!response.headersSent) response.shouldKeepAlive = false;
  };
}

/** Resolves once every connection has ended: by itself, or cut at the end of the grace. */
async function drain(app: FastifyInstance, graceMs: number, cut: () => void) {
  markStopping(app);
  const server = app.server;
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // Keep-alive connections between requests (nginx's among them) would otherwise stay open, and
  // take new requests, until their own timeout: each is closed once its request is answered.
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), idleSweepMs);
  const grace = setTimeout(() => {
    app.log.warn(`the shutdown grace (${graceMs / 1000} s) is over: cutting the requests still in flight`);
    cut();
  }, graceMs);
  try {
    await closed;
  } finally {
    clearInterval(sweep);
    clearTimeout(grace);
  }
}
