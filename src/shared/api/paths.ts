/** API paths of the platform (spec section 4 and decisions.md), relative to {base_url} or {auth_url}. */
export const apiPaths = {
  authorize: '/auth/login/oauth/authorize',
  token: '/v2/core/oauth/token',
  revoke: '/v2/core/oauth/revoke',
  /** RFC 8414 authorization-server metadata: what the two above and authorize support. */
  oauthMetadata: '/.well-known/oauth-authorization-server',
  me: '/v2/core/me',
  openapi: '/v2/core/openapi.json',
} as const;
