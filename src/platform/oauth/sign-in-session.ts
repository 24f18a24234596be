import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthContext } from './oauth-context';
import { replaceSession, sessionUser } from '../db/repositories/oauth';
import { PageError } from '../http/errors';
import { hmac, randomToken, safeEqual, sha256 } from '../security/secrets';

const sessionCookie = 'platform_session';
const csrfCookie = 'platform_csrf';
const sessionLifetimeMs = 12 * 60 * 60 * 1000;

function cookieOptions(ctx: OAuthContext) {
  return {
    path: '/auth',
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: ctx.config.publicUrl.startsWith('https:'),
  };
}

/** The signed-in user of the sign-in service, or undefined. */
export async function currentUser(ctx: OAuthContext, request: FastifyRequest) {
  const token = request.cookies[sessionCookie];
  if (!token) return undefined;
  return sessionUser(ctx.db, sha256(token), ctx.clock());
}

/**
 * Starts a fresh session (a new id at every sign-in, so a planted cookie is worthless) and ends
 * the one the browser had, if any: signing in again, perhaps as someone else, replaces it.
 */
export async function startSession(
  ctx: OAuthContext,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: number,
) {
  const token = randomToken();
  const now = ctx.clock();
  const previous = request.cookies[sessionCookie];
  await replaceSession(ctx.db, {
    tokenHash: sha256(token),
    previousHash: previous ? sha256(previous) : undefined,
    userId,
    now,
    expiresAt: now + sessionLifetimeMs,
  });
  reply.setCookie(sessionCookie, token, { ...cookieOptions(ctx), maxAge: sessionLifetimeMs / 1000 });
}

/**
 * CSRF token for the forms: an HMAC of a random value kept in an HttpOnly cookie. A forged form
 * from another site has neither the cookie's value nor our key.
 */
export function csrfTokenFor(ctx: OAuthContext, request: FastifyRequest, reply: FastifyReply): string {
  let seed = request.cookies[csrfCookie];
  if (!seed || seed.length < 32) {
    seed = randomToken();
    reply.setCookie(csrfCookie, seed, cookieOptions(ctx));
    // Later reads in this same request must see the new value.
    request.cookies[csrfCookie] = seed;
  }
  return hmac(ctx.signingKey, `csrf:${seed}`);
}

/** Refuses a form POST that did not come from our own page (A7). */
export function assertSameOriginForm(ctx: OAuthContext, request: FastifyRequest, submitted: unknown) {
  const origin = request.headers.origin;
  const fetchSite = request.headers['sec-fetch-site'];
  const ownOrigin = new URL(ctx.config.publicUrl).origin;
  const foreign = (origin !== undefined && origin !== ownOrigin) || fetchSite === 'cross-site';
  const seed = request.cookies[csrfCookie];
  const valid =
    typeof submitted === 'string' &&
    seed !== undefined &&
    safeEqual(submitted, hmac(ctx.signingKey, `csrf:${seed}`));
  if (foreign || !valid) {
    throw new PageError(
      403,
      'Form expired',
      'This form could not be verified. Go back, reload the page and try again.',
    );
  }
}
