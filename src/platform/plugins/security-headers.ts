import helmet, { type FastifyHelmetOptions } from '@fastify/helmet';
import Fastify, { type FastifyInstance } from 'fastify';

/**
 * The response headers @fastify/helmet sends with these options. It sets them on the raw response
 * in an onRequest hook, so a bare route that answers the raw response's headers shows exactly them.
 */
async function helmetHeaders(options: FastifyHelmetOptions): Promise<Record<string, string>> {
  const probe = Fastify({ logger: false });
  await probe.register(helmet, options);
  probe.get('/', (_request, reply) => reply.send(reply.raw.getHeaders()));
  const headers = (await probe.inject('/')).json<Record<string, string>>();
  await probe.close();
  return headers;
}

/**
 * The headers of helmet's set that OWASP's REST Security Cheat Sheet ("Security Headers") asks of
 * every API answer. The rest govern what a page does (its referrer, DNS prefetching, its opener, its
 * agent cluster, IE8's download dialog, the legacy XSS filter, Flash's and Acrobat's policy files)
 * or who may embed a resource without CORS (Cross-Origin-Resource-Policy: the API answers such a
 * request, which cannot carry a bearer token, with a 401). A JSON answer sent with `nosniff` and
 * `default-src 'none'` is never a page. Each header costs about 1 µs of CPU on every answer.
 */
const apiAnswerHeaders = new Set([
  'content-security-policy',
  'strict-transport-security',
  'x-content-type-options',
  'x-frame-options',
]);

/**
 * Helmet's security headers, the same ones @fastify/helmet sends, but computed once: on pages and
 * files all of them, on API answers (paths for which `isApi` is true) the part above.
 * @fastify/helmet rebuilds helmet's middleware (CSP directives parsed and validated again) on every
 * request, which cost an API read 5–7% of its CPU time; the headers depend only on the options, so
 * the hook only copies them, into the reply rather than onto the raw response (which makes Node
 * merge every reply header into its own map, one by one). A route that sets one of them itself (the
 * sandboxing CSP of file delivery) overrides it, and error answers keep them, as before. Per-route
 * helmet options and `reply.helmet()` are not offered: nothing uses them.
 */
export async function securityHeaders(
  app: FastifyInstance,
  options: FastifyHelmetOptions,
  isApi: (url: string) => boolean,
) {
  const headers = await helmetHeaders(options);
  const apiHeaders = Object.fromEntries(
    Object.entries(headers).filter(([name]) => apiAnswerHeaders.has(name)),
  );
  app.addHook('onRequest', (request, reply, done) => {
    reply.headers(isApi(request.url) ? apiHeaders : headers);
    done();
  });
}
