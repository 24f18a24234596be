import { refreshTokenWithGrant, rotateRefreshToken } from '../../db/repositories/oauth';
import { OAuthError } from '../../http/errors';
import { sha256 } from '../../security/secrets';
import { isScope } from '../../../shared/api/oauth';
import { issueTokens, revokeGrant } from '../tokens';
import { type Grant, grantInvalid } from './grant';

/**
 * The refresh grant (RFC 6749 6): rotates the refresh token, and may narrow the scope, never widen
 * it. A rotated token used again ends its whole family (the grant), as someone else holds a copy.
 */
export const refreshTokenGrant: Grant = async (ctx, client, { fields }) => {
  if (!fields.refresh_token) throw new OAuthError('invalid_request', 'refresh_token is required.');
  const found = await refreshTokenWithGrant(ctx.db, sha256(fields.refresh_token));
  if (!found || found.client_id !== client.client_id) throw grantInvalid('The refresh token is invalid.');
  if (found.revoked_at !== null) throw grantInvalid('The refresh token has been revoked.');
  if (ctx.clock() >= found.expires_at) throw grantInvalid('The refresh token has expired; sign in again.');

  let scope = found.scope;
  if (fields.scope !== undefined) {
    if (!isScope(fields.scope) || (fields.scope === 'full' && found.scope !== 'full')) {
      throw new OAuthError('invalid_scope', 'A refresh cannot widen the granted scope.');
    }
    scope = fields.scope;
  }

  const tokens = await ctx.db.transaction().execute(async (trx) => {
    if (!(await rotateRefreshToken(trx, found.token_hash, ctx.clock()))) {
      await revokeGrant(ctx, trx, found.grant_id);
      return undefined;
    }
    return issueTokens(ctx, trx, found.grant_id, scope);
  });
  // Thrown after the transaction, so that the revocation above is committed.
  if (!tokens) throw grantInvalid('The refresh token was already used; its whole family is revoked.');
  return tokens;
};
