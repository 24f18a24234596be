import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { apiPaths } from '../../shared/api/paths';
import type { OAuthContext } from './oauth-context';
import { readByHandler } from '../http/route-schemas';
import { hasConsent, insertCode, recordConsent } from '../db/repositories/oauth';
import { PageError } from '../http/errors';
import { findUserByEmail } from '../security/accounts';
import { dummyPasswordHash, verifyPassword } from '../security/passwords';
import { randomToken, sha256 } from '../security/secrets';
import {
  type AuthorizeRequest,
  authorizeParams,
  authorizeQuerySchema,
  parseAuthorizeRequest,
  RedirectableError,
  redirectTo,
} from './authorize-request';
import {
  type LoginPage,
  renderConsentPage,
  renderLoginPage,
  renderMessagePage,
  stylesheet,
  stylesheetPath,
  waitStylesheet,
  waitStylesheetPattern,
} from './pages';
import { deviceOf, issueDeviceCookie } from './device-cookie';
import { assertSameOriginForm, csrfTokenFor, currentUser, startSession } from './sign-in-session';

const loginPath = '/auth/login';
const codeLifetimeMs = 60_000;

/** Whether an authorization request carries `prompt=login` (a space-separated list in OIDC). */
function promptsForLogin(query: unknown): boolean {
  const prompt = (query as Record<string, unknown>).prompt;
  return typeof prompt === 'string' && prompt.split(' ').includes('login');
}

/** The authorize URL (path and query) without its `prompt`, to return to once signed in. */
function withoutPrompt(url: string): string {
  const parsed = new URL(url, 'http://platform.invalid');
  parsed.searchParams.delete('prompt');
  return parsed.pathname + parsed.search;
}

/**
 * Where the sign-in form goes once signed in. Only our own authorize URL may be returned to:
 * anything else would be an open redirect. The page writes it as a path and a percent-encoded
 * query, so anything outside printable ASCII was put there by hand; a line break would even split
 * the Location header. Such a form is refused with a page, before any password is checked (H10).
 */
function returnToOf(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith(`${apiPaths.authorize}?`)) return loginPath;
  if (!/^[\x21-\x7e]*$/.test(value)) {
    throw new PageError(
      400,
      'Invalid sign-in link',
      'This sign-in form has been altered. Go back to the application and sign in again.',
    );
  }
  return value;
}

const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } });

/** GET authorize in the OpenAPI document; parseAuthorizeRequest checks the query itself. */
const authorizeDoc = {
  summary: 'Start a sign-in (spec 4.1, RFC 6749 4.1.1)',
  description: 'Shows the sign-in page, then the consent page, then sends the browser back to redirect_uri.',
  tags: ['oauth'],
  querystring: authorizeQuerySchema,
  response: {
    200: html('The sign-in page, or the consent page once signed in.'),
    302: z
      .undefined()
      .describe(
        'Back to redirect_uri with code, state and iss; or with error, error_description, state and iss.',
      ),
    400: html('An error page when client_id or redirect_uri is not valid: never a redirect.'),
  },
};

/** The sign-in service: spec 4.1 plus the login and consent pages of decisions.md. */
export async function signInRoutes(app: FastifyInstance, { ctx }: { ctx: OAuthContext }) {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('cache-control', 'no-store');
  });
  registerPageAssets(app);
  registerAuthorize(app, ctx);
  registerLogin(app, ctx);
}

const page = { errorFormat: 'page' as const };

/** The pages' stylesheets. */
function registerPageAssets(app: FastifyInstance) {
  app.get(stylesheetPath, { config: page, schema: { hide: true } }, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(stylesheet),
  );

  // One small stylesheet per length of hold, so the countdown needs no script and no inline style.
  app.get('/auth/assets/:file', { config: page, schema: { hide: true } }, async (request, reply) => {
    const match = waitStylesheetPattern.exec(request.url.split('?')[0]!);
    if (!match) return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return reply
      .type('text/css; charset=utf-8')
      .header('cache-control', 'public, max-age=86400')
      .send(waitStylesheet(Number(match[1])));
  });
}

const redirect = (reply: FastifyReply, status: 302 | 303, location: string) =>
  reply.code(status).header('location', location).send();

const redirectError = (ctx: OAuthContext, reply: FastifyReply, status: 302 | 303, error: RedirectableError) =>
  redirect(
    reply,
    status,
    redirectTo(error.redirectUri, {
      error: error.error,
      error_description: error.message,
      state: error.state,
      iss: ctx.config.publicUrl,
    }),
  );

/** Validates the request; when the error may go back to the client, sends it and answers undefined. */
async function parseOrRedirect(
  ctx: OAuthContext,
  reply: FastifyReply,
  params: Record<string, unknown>,
  status: 302 | 303,
) {
  try {
    return await parseAuthorizeRequest(ctx.db, params);
  } catch (error) {
    if (error instanceof RedirectableError) {
      redirectError(ctx, reply, status, error);
      return undefined;
    }
    throw error;
  }
}

/** Issues a single-use code (only its hash is kept) and sends the user back with it. */
async function redirectWithCode(
  ctx: OAuthContext,
  reply: FastifyReply,
  status: 302 | 303,
  request: AuthorizeRequest,
  userId: number,
) {
  const code = randomToken(32);
  const now = ctx.clock();
  await insertCode(ctx.db, {
    codeHash: sha256(code),
    clientId: request.client.client_id,
    userId,
    redirectUri: request.redirectUri,
    scope: request.scope,
    state: request.state,
    codeChallenge: request.codeChallenge,
    createdAt: now,
    expiresAt: now + codeLifetimeMs,
  });
  const location = redirectTo(request.redirectUri, { code, state: request.state, iss: ctx.config.publicUrl });
  return redirect(reply, status, location);
}

function loginPage(
  ctx: OAuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  returnTo: string,
  extra: Pick<LoginPage, 'email' | 'error' | 'clientName' | 'waitSeconds'> = {},
) {
  const csrfToken = csrfTokenFor(ctx, request, reply);
  return reply
    .type('text/html; charset=utf-8')
    .send(renderLoginPage({ action: loginPath, returnTo, csrfToken, ...extra }));
}

const authorizeOptions = {
  config: page,
  ...readByHandler(
    authorizeDoc,
    "the query, by parseAuthorizeRequest in RFC 6749's order: an error about client_id or redirect_uri is shown as a page, every other one is sent back to redirect_uri.",
  ),
};

/** The authorization endpoint: the request, then sign-in and consent when they are still needed. */
function registerAuthorize(app: FastifyInstance, ctx: OAuthContext) {
  app.get(apiPaths.authorize, authorizeOptions, async (request, reply) => {
    const authorizeRequest = await parseOrRedirect(ctx, reply, request.query as Record<string, unknown>, 302);
    if (!authorizeRequest) return reply;
    const user = await currentUser(ctx, request);
    // OpenID Connect's prompt=login: the application wants the person to sign in again (the web app
    // asks for it after a sign-out, so that the next person at a shared computer is not let in).
    // Once signed in, the flow goes on without it.
    if (!user || promptsForLogin(request.query))
      return loginPage(ctx, request, reply, withoutPrompt(request.url), {
        clientName: authorizeRequest.client.name,
      });
    if (await hasConsent(ctx.db, user.id, authorizeRequest.client.client_id, authorizeRequest.scope))
      return redirectWithCode(ctx, reply, 302, authorizeRequest, user.id);
    const html = renderConsentPage({
      action: apiPaths.authorize,
      clientName: authorizeRequest.client.name,
      scope: authorizeRequest.scope,
      userEmail: user.email,
      csrfToken: csrfTokenFor(ctx, request, reply),
      params: authorizeParams(authorizeRequest),
    });
    return reply.type('text/html; charset=utf-8').send(html);
  });

  // The consent form posts here with the authorization request in hidden fields.
  app.post(apiPaths.authorize, { config: page }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    assertSameOriginForm(ctx, request, body.csrf_token);
    const user = await currentUser(ctx, request);
    if (!user)
      throw new PageError(
        401,
        'Signed out',
        'Your sign-in has ended. Go back to the application and sign in again.',
      );
    const authorizeRequest = await parseOrRedirect(ctx, reply, body, 303);
    if (!authorizeRequest) return reply;
    if (body.decision !== 'allow') {
      const { redirectUri, state } = authorizeRequest;
      return redirectError(
        ctx,
        reply,
        303,
        new RedirectableError(redirectUri, 'access_denied', 'The user declined.', state),
      );
    }
    await recordConsent(
      ctx.db,
      user.id,
      authorizeRequest.client.client_id,
      authorizeRequest.scope,
      ctx.clock(),
    );
    return redirectWithCode(ctx, reply, 303, authorizeRequest, user.id);
  });
}

/** The sign-in page and its form: throttled sign-ins, then a session and the way back. */
function registerLogin(app: FastifyInstance, ctx: OAuthContext) {
  app.get(loginPath, { config: page }, async (request, reply) => loginPage(ctx, request, reply, loginPath));

  app.post(loginPath, { config: page }, async (request, reply) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    assertSameOriginForm(ctx, request, body.csrf_token);
    const email = typeof body.email === 'string' ? body.email.slice(0, 320) : '';
    const password = typeof body.password === 'string' ? body.password.slice(0, 1024) : '';
    const returnTo = returnToOf(body.return_to);

    const user = email ? await findUserByEmail(ctx.db, email) : undefined;
    const turn = await ctx.signInLimiter.begin({
      account: email,
      address: request.ip,
      device: user && deviceOf(ctx, request, user.id),
    });
    if (turn.waitMs > 0) {
      const seconds = Math.ceil(turn.waitMs / 1000);
      reply.code(429).header('retry-after', String(seconds));
      return loginPage(ctx, request, reply, returnTo, {
        email,
        waitSeconds: seconds,
        error:
          'Too many failed sign-ins. Try again in {wait}. ' +
          'A browser you have signed in with before is not held back.',
      });
    }

    const valid = await verifyPassword(password, user?.password_hash ?? (await dummyPasswordHash));
    if (!user || !valid) {
      reply.code(401);
      return loginPage(ctx, request, reply, returnTo, {
        email,
        error: 'The email or password is incorrect.',
      });
    }
    await turn.succeeded();
    issueDeviceCookie(ctx, reply, user.id);
    await startSession(ctx, request, reply, user.id);
    if (returnTo === loginPath) {
      return reply
        .type('text/html; charset=utf-8')
        .send(renderMessagePage('Signed in', `You are signed in as ${user.email}.`));
    }
    return reply.code(303).header('location', returnTo).send();
  });
}
