import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { oauthErrorAnswer } from '../../../src/testing/spec-examples';
import { specPeople } from './fixtures';
import type { OAuthStore, Scope } from './oauth-store';
import { sameSecret } from './oauth-store';
import type { ResolvedOptions } from './options';
import { consentPage, errorPage, signInPage } from './pages';

const authorizePath = '/auth/login/oauth/authorize';
const sessionCookie = 'spec_platform_session';
const html = 'text/html; charset=utf-8';

type Fields = Record<string, unknown>;

/** Spec 4.1, 4.2 and 5: the sign-in redirect, the browser's sign-in and consent, the token endpoint. */
export function oauthRoutes(app: FastifyInstance, tokens: OAuthStore, options: ResolvedOptions) {
  /**
   * The spec requires all four parameters and does not say what happens otherwise. As RFC 6749
   * §4.1.2.1 asks, nothing is redirected to an address that is not known to be the client's.
   * Other parameters (response_type, PKCE's code_challenge, prompt, …) are not in the spec: ignored.
   */
  function authorizeRequest(fields: Fields, reply: FastifyReply) {
    const { client_id, redirect_uri, state, scope } = fields;
    if (![client_id, redirect_uri, state, scope].every((v) => typeof v === 'string' && v !== '')) {
      reply.code(400).type(html).send(errorPage('client_id, redirect_uri, state and scope are required.'));
      return undefined;
    }
    const client = tokens.client(client_id as string);
    if (!client || !client.redirect_uris.includes(redirect_uri as string)) {
      reply.code(400).type(html).send(errorPage('Unknown client, or a redirect_uri it did not register.'));
      return undefined;
    }
    if (scope !== 'basic' && scope !== 'full') {
      reply.redirect(
        backToClient(redirect_uri as string, { error: 'invalid_scope', state: state as string }),
      );
      return undefined;
    }
    return {
      client_id: client.client_id,
      redirect_uri: redirect_uri as string,
      state: state as string,
      scope: scope as Scope,
    };
  }

  const browserSession = (request: FastifyRequest) => tokens.browserSession(request.cookies[sessionCookie]);

  app.get(authorizePath, async (request, reply) => {
    const authorize = authorizeRequest(request.query as Fields, reply);
    if (!authorize) return reply;
    const session = browserSession(request);
    reply.header('x-frame-options', 'DENY').type(html);
    if (!session) return reply.send(signInPage(request.url));
    // Consent is asked every time: simpler than remembering it, and allowed by the spec.
    return reply.send(consentPage(session.email, { ...authorize, authenticity_token: session.csrfToken }));
  });

  app.post('/auth/login', async (request, reply) => {
    const { email, password, return_to: returnTo } = (request.body ?? {}) as Fields;
    if (typeof returnTo !== 'string' || !returnTo.startsWith(`${authorizePath}?`)) {
      return reply.code(400).type(html).send(errorPage('Start signing in from the application.'));
    }
    const known = Object.values(specPeople).find((person) => person === email);
    if (!known || typeof password !== 'string' || !sameSecret(password, options.password)) {
      return reply.code(401).type(html).send(signInPage(returnTo, 'Wrong email or password.'));
    }
    reply.setCookie(sessionCookie, tokens.startBrowserSession(known), {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
    });
    return reply.redirect(returnTo);
  });

  app.post(authorizePath, async (request, reply) => {
    const fields = (request.body ?? {}) as Fields;
    const authorize = authorizeRequest(fields, reply);
    if (!authorize) return reply;
    const session = browserSession(request);
    if (!session || typeof fields.authenticity_token !== 'string') {
      return reply.code(403).type(html).send(errorPage('Your sign-in has ended. Start again.'));
    }
    if (!sameSecret(fields.authenticity_token, session.csrfToken)) {
      return reply.code(403).type(html).send(errorPage('This form has expired. Start again.'));
    }
    const { redirect_uri, state } = authorize;
    if (fields.decision === 'deny') {
      return reply.redirect(backToClient(redirect_uri, { error: 'access_denied', state }));
    }
    if (fields.decision !== 'allow') {
      return reply.code(400).type(html).send(errorPage('Choose Allow or Deny.'));
    }
    const code = tokens.issueCode({
      clientId: authorize.client_id,
      email: session.email,
      scope: authorize.scope,
      state,
    });
    return reply.redirect(backToClient(redirect_uri, { code, state }));
  });

  /**
   * Spec 4.2: grant_type in the query, a JSON body. Success status not shown: 200, as RFC 6749 §5.1.
   * Errors are RFC 6749 §5.2's `{"error": …}`. Only JSON is shown, so a form body is refused.
   */
  app.post('/v2/core/oauth/token', async (request, reply) => {
    const invalid = (status: number, error: string) => reply.code(status).send(oauthErrorAnswer(error));
    if (!isJson(request)) return invalid(400, 'invalid_request');
    const grantType = (request.query as Fields).grant_type;
    const body = (request.body ?? {}) as Fields;
    if (grantType !== 'authorization_code' && !(grantType === 'refresh_token' && options.refresh)) {
      return invalid(400, grantType === undefined ? 'invalid_request' : 'unsupported_grant_type');
    }
    const client = tokens.authenticateClient(body.client_id, body.client_secret);
    if (!client) return invalid(401, 'invalid_client');
    const issued =
      grantType === 'authorization_code'
        ? typeof body.code === 'string' && tokens.redeemCode(body.code, client.client_id, body.state)
        : typeof body.refresh_token === 'string' && tokens.refresh(body.refresh_token, client.client_id);
    if (!issued) return invalid(400, 'invalid_grant');
    return reply.header('cache-control', 'no-store').code(200).send(issued);
  });

  if (options.revoke) {
    /** RFC 7009: the client authenticates (in the body or with HTTP Basic) and names the token. */
    app.post('/v2/core/oauth/revoke', async (request, reply) => {
      const body = (request.body ?? {}) as Fields;
      const [clientId, clientSecret] = basicCredentials(request) ?? [body.client_id, body.client_secret];
      const client = tokens.authenticateClient(clientId, clientSecret);
      if (!client) return reply.code(401).send(oauthErrorAnswer('invalid_client'));
      if (typeof body.token !== 'string') return reply.code(400).send(oauthErrorAnswer('invalid_request'));
      tokens.revoke(body.token, client.client_id);
      return reply.code(200).send();
    });
  }
}

function backToClient(redirectUri: string, params: Record<string, string>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.append(name, value);
  return url.toString();
}

function isJson(request: FastifyRequest): boolean {
  return (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() === 'application/json';
}

/** RFC 6749 §2.3.1: each part form-encoded, then joined by a colon and base64-encoded. */
function basicCredentials(request: FastifyRequest): [string, string] | undefined {
  const match = /^Basic (\S+)$/i.exec(request.headers.authorization ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  const [id, secret] = [decoded.slice(0, colon), decoded.slice(colon + 1)];
  try {
    return [decodeURIComponent(id.replace(/\+/g, ' ')), decodeURIComponent(secret.replace(/\+/g, ' '))];
  } catch {
    return undefined;
  }
}
