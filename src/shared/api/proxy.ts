/**
 * What the proxy and the web app both know of each other, written once: the proxy's own endpoints,
 * the header its token endpoints require, the fields of its token and sign-out answers, and the
 * markers in the page it serves. Both sides import these, so a rename on one side alone does not
 * compile. (The settings themselves, `AppConfig`, are in app-config.ts.)
 */

/** The proxy's own endpoints, as /app-config.json tells the web app. */
export const proxyPaths = {
  token: '/oauth/token',
  revoke: '/oauth/revoke',
  appConfig: '/app-config.json',
} as const;

/**
 * The header the proxy requires on its token endpoints (P4): a cross-site form cannot send it, and a
 * cross-origin fetch that does needs a CORS preflight, which the proxy never grants.
 */
export const requiredHeader = { name: 'x-requested-with', value: 'asset-manager' } as const;

/** The same header as a `fetch` / oidc-client-ts `headers` object. */
export const proxyHeaders = { [requiredHeader.name]: requiredHeader.value } as Record<string, string>;

/**
 * The id of the `<script type="application/json">` data block in index.html into which the proxy
 * writes the settings, and from which the app reads them (a data block never runs, so the CSP may
 * still forbid inline script).
 */
export const appConfigElementId = 'app-config';

/** The query parameter index.html's "Sign in" form sends (`/?sign-in=`) before the app has loaded. */
export const signInParameter = 'sign-in';

/**
 * The refresh request's field with the API paths the proxy is to read with the renewed token and
 * answer along with it: space-separated like `scope`, since the token endpoint takes no parameter
 * twice (RFC 6749 3.1).
 */
export const readAlongField = 'read';

/** The platform's answer to one read the proxy made along with a renewal. */
export interface ReadAlong {
  path: string;
  status: number;
  content_type?: string;
  body: string;
}

/** The proxy's token answer: the platform's tokens without the refresh token, and the reads asked for. */
export interface ProxyTokenResponse {
  access_token: string;
  token_type: string;
  expires_in?: number;
  scope?: string;
  /** Only where asked for (`read`), and only from a proxy that reads along (ours). */
  reads?: ReadAlong[];
}

/**
 * What signing out did at the platform, for the app to tell the person: the app's own session ends
 * in every case (the cookie goes), whether or not the platform could be told.
 */
export const signOutOutcomes = ['signed_out', 'not_offered', 'unreachable'] as const;
export type SignOutOutcome = (typeof signOutOutcomes)[number];

/** The proxy's answer to a sign-out (`POST /oauth/revoke`). */
export interface SignOutResponse {
  platform: SignOutOutcome;
}
