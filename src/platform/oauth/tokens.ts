import type { Kysely } from 'kysely';
import type { PlatformContext } from '../context';
import type { Database } from '../db/schema';
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
  ctx: PlatformContext,
  trx: Kysely<Database>,
  grantId: number,
  scope: string,
): Promise<TokenResponse> {
  const now = ctx.clock();
  const accessToken = randomToken();
  const refreshToken = randomToken();
  await trx
    .insertInto('access_tokens')
    .values({
      token_hash: sha256(accessToken),
      grant_id: grantId,
      scope,
      created_at: now,
      expires_at: now + ctx.config.accessTokenTtl * 1000,
    })
    .execute();
  await trx
    .insertInto('refresh_tokens')
    .values({ token_hash: sha256(refreshToken), grant_id: grantId, created_at: now })
    .execute();
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
 * are told first (every instance's, with Redis): when they cannot be, nothing is revoked.
 */
export async function revokeGrant(ctx: PlatformContext, db: Kysely<Database>, grantId: number) {
  await ctx.accessTokens.forgetGrant(grantId);
  await db
    .updateTable('grants')
    .set({ revoked_at: ctx.clock() })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute();
}
