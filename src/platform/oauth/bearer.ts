import type { FastifyRequest } from 'fastify';
import type { Scope } from '../../shared/api/oauth';
import type { Caller } from '../access/caller';
import type { OAuthContext } from './oauth-context';
import { accessTokenCaller } from '../db/repositories/oauth';
import { insufficientScope, invalidToken } from '../http/errors';
import { sha256 } from '../security/secrets';

declare module 'fastify' {
  interface FastifyRequest {
    caller: Caller;
  }
}

const bearerPattern = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;
const readMethods = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * onRequest hook for the API: a valid, unexpired, unrevoked access token in the Authorization
 * header (RFC 6750 2.1, never the query), and the `full` scope for anything that writes.
 */
export function bearerAuthentication(ctx: OAuthContext) {
  async function lookUp(tokenHash: string, now: number): Promise<Caller> {
    const epoch = ctx.accessTokens.epoch();
    const found = await accessTokenCaller(ctx.db, tokenHash, now);
    if (!found) throw invalidToken('The access token is invalid, expired or revoked.');
    const caller = { userId: found.userId, role: found.role, scope: found.scope as Scope };
    ctx.accessTokens.set(tokenHash, caller, found.grantId, found.expires_at, now, epoch);
    return caller;
  }

  function admit(request: FastifyRequest, caller: Caller) {
    request.caller = caller;
    if (!readMethods.has(request.method) && caller.scope !== 'full') throw insufficientScope('full');
  }

  /**
   * Throws at once when the request is refused; a token found in the cache (the usual case) is
   * admitted without a promise, and only a database lookup answers one.
   */
  return function authenticate(request: FastifyRequest): Promise<void> | undefined {
    if (request.method === 'OPTIONS') return;
    if ('access_token' in ((request.query ?? {}) as object)) {
      throw invalidToken('Send the access token in the Authorization header, not in the URL.');
    }
    const header = request.headers.authorization;
    if (!header) throw invalidToken('An access token is required.');
    const match = bearerPattern.exec(header);
    if (!match) throw invalidToken('The Authorization header must be "Bearer <access_token>".');

    const now = ctx.clock();
    const tokenHash = sha256(match[1]!);
    const cached = ctx.accessTokens.get(tokenHash, now);
    if (cached) {
      admit(request, cached);
      return;
    }
    return lookUp(tokenHash, now).then((caller) => admit(request, caller));
  };
}
