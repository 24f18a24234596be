import { createHash } from 'node:crypto';
import { pkceVerifierPattern } from '../../../shared/api/oauth';
import { claimCode, codeByHash, grantIdsOfCode, insertGrant } from '../../db/repositories/oauth';
import { OAuthError } from '../../http/errors';
import { safeEqual, sha256 } from '../../security/secrets';
import { issueTokens, revokeGrant } from '../tokens';
import { type Grant, grantInvalid } from './grant';

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

/**
 * The authorization code grant (spec 4.2, RFC 6749 4.1.3, PKCE by RFC 7636): each check a small
 * step, in an order that never lets a forger revoke. A code redeemed twice revokes what the first
 * redemption issued: whoever holds those tokens may be an attacker.
 */
export const authorizationCodeGrant: Grant = async (ctx, client, { shape, fields }) => {
  if (!fields.code) throw new OAuthError('invalid_request', 'code is required.');
  const code = await codeByHash(ctx.db, sha256(fields.code));
  if (!code || code.client_id !== client.client_id) throw grantInvalid('The code is invalid.');
  if (ctx.clock() > code.expires_at) throw grantInvalid('The code has expired.');

  const verifier = fields.code_verifier;
  if (code.code_challenge) {
    if (!verifier || !pkceVerifierPattern.test(verifier) || !safeEqual(s256(verifier), code.code_challenge)) {
      throw grantInvalid('The PKCE code_verifier is missing or does not match.');
    }
  } else if (verifier !== undefined) {
    throw grantInvalid('A code_verifier was sent, but no code_challenge was given at authorize.');
  }
  if (shape === 'json' || fields.state !== undefined) {
    if (fields.state === undefined || !safeEqual(fields.state, code.state)) {
      throw grantInvalid('state is missing or differs from the one given at authorize.');
    }
  }
  if (shape === 'form' || fields.redirect_uri !== undefined) {
    if (fields.redirect_uri !== code.redirect_uri)
      throw grantInvalid('redirect_uri differs from the one given at authorize.');
  }

  const tokens = await ctx.db.transaction().execute(async (trx) => {
    const now = ctx.clock();
    if (!(await claimCode(trx, code.id, now))) {
      for (const grantId of await grantIdsOfCode(trx, code.id)) await revokeGrant(ctx, trx, grantId);
      return undefined;
    }
    const grantId = await insertGrant(trx, {
      clientId: client.client_id,
      userId: code.user_id,
      scope: code.scope,
      codeId: code.id,
      createdAt: now,
      expiresAt: now + ctx.config.refreshTokenTtl * 1000,
    });
    return issueTokens(ctx, trx, grantId, code.scope);
  });
  // Thrown after the transaction, so that the revocation above is committed.
  if (!tokens) throw grantInvalid('The code has already been used; tokens issued from it are revoked.');
  return tokens;
};
