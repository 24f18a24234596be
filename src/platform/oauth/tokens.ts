import type { OAuthContext } from './oauth-context';
import type { DB } from '../db/database';
import { insertTokenPair, markGrantRevoked } from '../db/repositories/oauth';
import { randomToken, sha256 } from '../security/secrets';

/** The flat token response of spec 2.1, plus the standard `expires_in` and `scope`. */
export interface TokenResponse {
  token_type: 'bearer';
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
}

/** Issues a new access and refresh token pair in a grant (the token family). */
export async function issueTokens(
  ctx: OAuthContext,
  trx: DB,
  grantId: number,
  scope: string,
): Promise<TokenResponse> {
  const now = ctx.clock();
  const accessToken = randomToken();
  const refreshToken = randomToken();
  await insertTokenPair(trx, {
    grantId,
    scope,
    accessHash: sha256(accessToken),
    refreshHash: sha256(refreshToken),
    now,
    accessExpiresAt: now + ctx.config.accessTokenTtl * 1000,
  });
  return {
    token_type: 'bearer',
    access_token: accessToken,
    refresh_token: refreshToken,
    expires_in: ctx.config.accessTokenTtl,
    scope,
  };
}

/**
 * Ends a whole token family: every access and refresh token issued in it stops working. The caches
 * are told first (every instance's, with Redis; while Redis is away, once no instance trusts its
 * cache: redis-access-token-cache.ts), then the database.
 */
export async function revokeGrant(ctx: OAuthContext, db: DB, grantId: number) {
  await ctx.accessTokens.forgetGrant(grantId);
  await markGrantRevoked(db, grantId, ctx.clock());
}
