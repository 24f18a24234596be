import type { FastifyRequest } from 'fastify';
import type { Role } from '../../shared/api/me';
import type { PlatformContext } from '../context';
import { insufficientScope, invalidToken } from '../errors';
import { sha256 } from '../security/secrets';
import type { Scope } from './authorize-request';

/** Who is calling the API, from their bearer token. */
export interface Caller {
  userId: number;
  role: Role;
  scope: Scope;
}

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
export function bearerAuthentication(ctx: PlatformContext) {
  return async function authenticate(request: FastifyRequest) {
    if (request.method === 'OPTIONS') return;
    if ('access_token' in ((request.query ?? {}) as object)) {
      throw invalidToken('Send the access token in the Authorization header, not in the URL.');
    }
    const header = request.headers.authorization;
    if (!header) throw invalidToken('An access token is required.');
    const match = bearerPattern.exec(header);
    if (!match) throw invalidToken('The Authorization header must be "Bearer <access_token>".');

    const now = ctx.clock();
    const found = await ctx.db
      .selectFrom('access_tokens')
      .innerJoin('grants', 'grants.id', 'access_tokens.grant_id')
      .innerJoin('users', 'users.id', 'grants.user_id')
      .select(['users.id as userId', 'users.role', 'access_tokens.scope'])
      .where('access_tokens.token_hash', '=', sha256(match[1]!))
      .where('access_tokens.expires_at', '>', now)
      .where('access_tokens.revoked_at', 'is', null)
      .where('grants.revoked_at', 'is', null)
      .executeTakeFirst();
    if (!found) throw invalidToken('The access token is invalid, expired or revoked.');
    request.caller = { userId: found.userId, role: found.role, scope: found.scope as Scope };
    if (!readMethods.has(request.method) && found.scope !== 'full') throw insufficientScope('full');
  };
}
