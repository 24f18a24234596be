import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isSupportedGrant, pkceVerifierPattern, supportedGrants } from '../shared/api/oauth';
import {
  proxyPaths,
  readAlongField,
  requiredHeader,
  type ProxyTokenResponse,
  type SignOutOutcome,
  type SignOutResponse,
} from '../shared/api/proxy';
import type { ProxyConfig } from './env';
import { OAuthFailure, sendOAuthError } from './errors';
import type { PlatformKnowledge } from './platform-knowledge';
import { readAlong, readsAsked } from './read-along';
import type { ExchangeResult, PlatformClient, TokenGrant } from './token-exchange';

/**
 * The refresh token lives only here (P9): HttpOnly so page scripts cannot read it, Secure, SameSite=Strict
 * so no other site's request carries it, and scoped to the proxy's /oauth paths so no other request does.
 */
export const refreshCookie = {
  name: 'am_refresh',
  options: {
    httpOnly: true,
    secure: true,
    sameSite: 'strict',
    path: '/oauth',
  },
  /** The platform's refresh lifetime (decisions.md); past it the platform refuses and the cookie goes. */
  maxAgeSeconds: 14 * 24 * 60 * 60,
} as const;

/**
 * Whether this browser holds a session, for the page the proxy serves (index-page.ts): a signed-in
 * person's first paint is a loading status, not a flash of the sign-in page. A hint, not a credential:
 * it carries `1` and nothing else, so it may travel with every page request, links from other sites
 * included (Lax), and it comes and goes with the refresh cookie.
 */
export const sessionHintCookie = {
  name: 'am_session',
  options: {
    httpOnly: true,
    secure: true,
    sameSite: 'lax',
    path: '/',
  },
} as const;

const maxBodyBytes = 16 * 1024;

const refused = (status: number, error: string, description: string) =>
  new OAuthFailure(status, error, description);

function noStore(reply: FastifyReply) {
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/** P4: only the web app's own pages may ask for tokens or sign out. */
function checkCaller(request: FastifyRequest, config: ProxyConfig) {
  if (request.headers.origin !== config.publicOrigin) {
    throw refused(403, 'invalid_request', 'Token requests are accepted from the web app only.');
  }
  // Browsers that send Fetch Metadata say for themselves whether the call is from our own pages.
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin') {
    throw refused(403, 'invalid_request', 'Token requests are accepted from the web app only.');
  }
  if (request.headers[requiredHeader.name] !== requiredHeader.value) {
    throw refused(403, 'invalid_request', `Send the header ${requiredHeader.name}: ${requiredHeader.value}.`);
  }
}

/** The form fields, each at most once (RFC 6749 3.1: parameters must not be repeated). */
function readFields(body: unknown): Map<string, string> {
  const fields = new Map<string, string>();
  if (!(body instanceof URLSearchParams)) return fields;
  for (const [name, value] of body) {
    if (fields.has(name)) {
      // Echo the name only when it is a plain parameter name: the description must stay RFC 6749 text.
      const shown = /^[a-z_]{1,40}$/.test(name) ? name : 'A parameter';
      throw refused(400, 'invalid_request', `${shown} is given more than once.`);
    }
    fields.set(name, value);
  }
  return fields;
}

function checkGrantType(fields: Map<string, string>): TokenGrant['grantType'] {
  const grantType = fields.get('grant_type');
  if (!grantType) throw refused(400, 'invalid_request', 'grant_type is required.');
  if (!isSupportedGrant(grantType)) {
    throw refused(400, 'unsupported_grant_type', `Only ${supportedGrants.join(' and ')} are accepted.`);
  }
  return grantType;
}

/** P3: the proxy speaks for its one client; the secret is its own and never comes from a browser. */
function checkClient(fields: Map<string, string>, config: ProxyConfig) {
  const clientId = fields.get('client_id');
  if (clientId !== undefined && clientId !== config.clientId) {
    throw refused(400, 'invalid_client', 'Unknown client_id.');
  }
  if (fields.has('client_secret')) {
    throw refused(400, 'invalid_request', 'A browser must not hold a client secret; do not send one.');
  }
}

function checkRedirectUri(fields: Map<string, string>, config: ProxyConfig) {
  const redirectUri = fields.get('redirect_uri');
  if (redirectUri !== undefined && redirectUri !== config.redirectUri) {
    throw refused(400, 'invalid_grant', 'redirect_uri is not the web app callback.');
  }
}

function codeGrant(fields: Map<string, string>): TokenGrant {
  const code = fields.get('code');
  const state = fields.get('state');
  const codeVerifier = fields.get('code_verifier');
  if (!code) throw refused(400, 'invalid_request', 'code is required.');
  // The spec's token request carries the state of the authorize redirect; the app sends it along.
  if (!state) throw refused(400, 'invalid_request', 'state is required.');
  // P5: without the app's PKCE verifier a stolen code is worthless, so none is redeemed without one.
  if (!codeVerifier || !pkceVerifierPattern.test(codeVerifier)) {
    throw refused(400, 'invalid_request', 'A PKCE code_verifier (RFC 7636) is required.');
  }
  return { grantType: 'authorization_code', code, state, codeVerifier };
}

/** The refresh token comes from the cookie only; one in the body (oidc-client-ts may send it) is ignored. */
function refreshGrant(request: FastifyRequest): TokenGrant {
  const refreshToken = request.cookies[refreshCookie.name];
  if (!refreshToken) throw refused(400, 'invalid_grant', 'No session to refresh; sign in again.');
  return { grantType: 'refresh_token', refreshToken };
}

function setRefreshCookie(reply: FastifyReply, token: string) {
  reply.setCookie(refreshCookie.name, token, {
    ...refreshCookie.options,
    maxAge: refreshCookie.maxAgeSeconds,
  });
  reply.setCookie(sessionHintCookie.name, '1', {
    ...sessionHintCookie.options,
    maxAge: refreshCookie.maxAgeSeconds,
  });
}

function clearRefreshCookie(reply: FastifyReply) {
  reply.clearCookie(refreshCookie.name, refreshCookie.options);
  reply.clearCookie(sessionHintCookie.name, sessionHintCookie.options);
}

function failureOf(result: Extract<ExchangeResult, { ok: false }>) {
  return new OAuthFailure(
    result.status,
    result.body.error,
    result.body.error_description,
    result.retryAfter ? { 'retry-after': result.retryAfter } : {},
  );
}

// Stays whole: a flat table of the two endpoints and their method fallbacks behind one content-type parser
// and one rate budget, which are this scope's.
export async function oauthRoutes(
  app: FastifyInstance,
  {
    config,
    platform,
    knowledge,
  }: { config: ProxyConfig; platform: PlatformClient; knowledge: PlatformKnowledge },
) {
  // Only the form encoding oidc-client-ts sends is read here; JSON, text and the rest get a 415.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: maxBodyBytes },
    (_request, body, done) => done(null, new URLSearchParams(body as string)),
  );

  // One budget for both endpoints and each address (P8): a burst cannot be spread across them. It is
  // checked on arrival, before any body is read.
  const limit = app.rateLimit({ max: config.tokenRateLimit, timeWindow: 60_000 });

  app.post(proxyPaths.token, { onRequest: limit, bodyLimit: maxBodyBytes }, async (request, reply) => {
    noStore(reply);
    checkCaller(request, config);
    const fields = readFields(request.body);
    const grantType = checkGrantType(fields);
    checkClient(fields, config);
    checkRedirectUri(fields, config);
    const grant = grantType === 'authorization_code' ? codeGrant(fields) : refreshGrant(request);
    if (grant.grantType === 'refresh_token' && (await knowledge.view()).capabilities.refreshGrant === false) {
      clearRefreshCookie(reply);
      throw refused(400, 'invalid_grant', 'This platform does not renew sessions; sign in again.');
    }

    if (grant.grantType === 'refresh_token' && platform.isRefreshing(grant.refreshToken)) {
      // Two tabs reloading at once: this one shares the other's call (see PlatformClient).
      request.log.debug('refresh joins the one in flight for the same session');
    }
    const result = await platform.exchange(grant);
    if (!result.ok) {
      if (result.body.error === 'invalid_client') {
        request.log.warn(
          'the platform refused the proxy client credentials (check OAUTH_CLIENT_ID and the secret)',
        );
      }
      if (grant.grantType === 'refresh_token' && result.body.error === 'unsupported_grant_type') {
        knowledge.learn({ refreshGrant: false });
      }
      // A refused refresh token is dead for good; a platform that is merely down may still accept it.
      if (grant.grantType === 'refresh_token' && result.kind === 'refused') clearRefreshCookie(reply);
      return sendOAuthError(reply, failureOf(result));
    }
    if (result.refreshToken) setRefreshCookie(reply, result.refreshToken);
    // A new sign-in without a refresh token must not leave an older session's token behind; a refresh
    // without one (a platform that does not rotate) leaves the cookie as it is.
    else if (grant.grantType === 'authorization_code') clearRefreshCookie(reply);
    // A page starting up asks for its first reads along with the renewal (read-along.ts says why
    // that is safe); they are only ever made with the token this answer carries.
    const reads = grant.grantType === 'refresh_token' ? readsAsked(fields.get(readAlongField), config) : [];
    const body: ProxyTokenResponse =
      reads.length > 0
        ? { ...result.tokens, reads: await readAlong(reads, result.tokens.access_token, config) }
        : result.tokens;
    return reply.code(200).type('application/json; charset=utf-8').send(body);
  });

  app.post(proxyPaths.revoke, { onRequest: limit, bodyLimit: maxBodyBytes }, async (request, reply) => {
    noStore(reply);
    checkCaller(request, config);
    // Whatever the body names (oidc-client-ts sends the access token), the session to end is the cookie's;
    // revoking its refresh token ends its access tokens too (decisions.md).
    const refreshToken = request.cookies[refreshCookie.name];
    clearRefreshCookie(reply);
    const signedOut = (platformOutcome: SignOutOutcome) =>
      reply
        .code(200)
        .type('application/json; charset=utf-8')
        .send({ platform: platformOutcome } satisfies SignOutResponse);
    if (!refreshToken) return signedOut('signed_out');
    if ((await knowledge.view()).capabilities.revoke === false) return signedOut('not_offered');
    const result = await platform.revoke(refreshToken);
    if (!result.ok) {
      request.log.warn({ status: result.status }, 'revocation at the platform failed; the cookie is cleared');
      return signedOut('unreachable');
    }
    if (!result.offered) knowledge.learn({ revoke: false });
    return signedOut(result.offered ? 'signed_out' : 'not_offered');
  });

  // Other methods still answer in RFC 6749's error format.
  for (const url of [proxyPaths.token, proxyPaths.revoke]) {
    app.route({
      method: ['GET', 'PUT', 'DELETE', 'PATCH'],
      url,
      handler: async (_request, reply) => {
        noStore(reply);
        reply.header('allow', 'POST');
        throw refused(405, 'invalid_request', 'Use POST.');
      },
    });
  }
}
