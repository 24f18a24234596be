import type { GrantType } from '../../../shared/api/oauth';
import type { OAuthContext } from '../oauth-context';
import type { OAuthClient } from '../../db/schema';
import { OAuthError } from '../../http/errors';
import type { TokenResponse } from '../tokens';

/** A token request as the token endpoint read it: its shape (spec JSON or RFC 6749 form) and fields. */
export interface TokenRequest {
  shape: 'json' | 'form';
  fields: Record<string, string>;
}

/**
 * One grant of the token endpoint: checks the request for the client that authenticated, and
 * issues tokens, or throws an OAuthError that the endpoint answers in RFC 6749's format.
 */
export type Grant = (ctx: OAuthContext, client: OAuthClient, request: TokenRequest) => Promise<TokenResponse>;

export type Grants = Record<GrantType, Grant>;

export const grantInvalid = (why: string) => new OAuthError('invalid_grant', why);
