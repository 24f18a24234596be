import type { FastifyReply, FastifyRequest } from 'fastify';
import type { OAuthContext } from './oauth-context';
import { hmac, randomToken, safeEqual } from '../security/secrets';

/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * signed in to an account gets a cookie naming that account, signed with the platform's key. While
 * the account is throttled for unknown browsers, that browser still gets through, counted on its
 * own (sign-in-limiter.ts). One cookie per account, so people who share a computer each keep theirs.
 * Its value is `userId.nonce.expiresAt.signature`; the nonce tells one browser from another.
 */
const lifetimeMs = 90 * 24 * 60 * 60 * 1000;
const cookieName = (userId: number) => `platform_device_${userId}`;
const sign = (ctx: OAuthContext, payload: string) => hmac(ctx.signingKey, `device:${payload}`);

/** Gives this browser a fresh device cookie for the user (at each successful sign-in). */
export function issueDeviceCookie(ctx: OAuthContext, reply: FastifyReply, userId: number) {
  const payload = `${userId}.${randomToken(16)}.${ctx.clock() + lifetimeMs}`;
  reply.setCookie(cookieName(userId), `${payload}.${sign(ctx, payload)}`, {
    // Sent with the sign-in form only, which alone reads it.
    path: '/auth/login',
    httpOnly: true,
    sameSite: 'strict',
    // Always Secure, unlike the session cookie: a browser that will not keep it on plain http is
    // just an unknown browser, and signing in still works.
    secure: true,
    maxAge: lifetimeMs / 1000,
  });
}

/** The nonce of this browser's device cookie for the user, when it has a valid, unexpired one. */
export function deviceOf(ctx: OAuthContext, request: FastifyRequest, userId: number): string | undefined {
  const parts = request.cookies[cookieName(userId)]?.split('.');
  if (parts?.length !== 4) return undefined;
  const [id, nonce, expiresAt, signature] = parts as [string, string, string, string];
  const valid =
    safeEqual(signature, sign(ctx, `${id}.${nonce}.${expiresAt}`)) &&
    id === String(userId) &&
    Number(expiresAt) > ctx.clock();
  return valid ? nonce : undefined;
}
