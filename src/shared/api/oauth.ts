/**
 * The OAuth grants and scopes the platform, the proxy and the app use, and the PKCE verifier they accept, written
 * once so that the token endpoints on either side of the proxy cannot drift apart.
 */

/** The grants of the token endpoint (spec 4.2, and RFC 6749's refresh), by what they do. */
export const grantTypes = { authorizationCode: 'authorization_code', refreshToken: 'refresh_token' } as const;
export const supportedGrants = [grantTypes.authorizationCode, grantTypes.refreshToken] as const;
export type GrantType = (typeof supportedGrants)[number];

export function isSupportedGrant(value: string): value is GrantType {
  return (supportedGrants as readonly string[]).includes(value);
}

/** The scopes a client may ask for (spec 4.1): `basic` reads what its user owns, `full` is the app's. */
export const scopes = ['basic', 'full'] as const;
export type Scope = (typeof scopes)[number];
export const isScope = (value: string): value is Scope => (scopes as readonly string[]).includes(value);

/** RFC 7636 4.1: a PKCE code verifier, 43 to 128 unreserved characters. */
export const pkceVerifierPattern = /^[A-Za-z0-9._~-]{43,128}$/;
