import type { AppConfig } from '../../../shared/api/app-config';
import { SessionEnded } from './errors';

/** What the HTTP layer needs of the session (lib/session.ts). */
export interface TokenSource {
  /** A usable access token, renewed first when it is about to expire; null without a session. */
  accessToken(): Promise<string | null>;
  /** A new access token, whatever the current one; null when the session cannot be renewed. */
  renew(): Promise<{ access_token: string } | null>;
}

export interface PlatformHttp {
  /** A call to the API with the bearer token; a 401 renews the session once and tries once more. */
  send(pathOrLink: string, init?: RequestInit): Promise<Response>;
  /**
   * A plain GET with this token, for the first page's reads made before the app has started: no renewal
   * on a 401 (the call that takes the answer does that, as for any answer).
   */
  readWith(pathOrLink: string, token: string): Promise<Response>;
  /**
   * An answer to a plain GET of `pathOrLink` made before the app started (the first page's reads),
   * taken as `send`'s own: a 401 renews the session once and asks once more.
   */
  answered(pathOrLink: string, response: Response): Promise<Response>;
  /** The current token, for calls made outside fetch (uploads through XMLHttpRequest). */
  accessToken(): Promise<string>;
  /** A token renewed because the platform refused the current one (SessionEnded when it cannot be). */
  renewedToken(): Promise<string>;
  /** The absolute address of an API path or of a link the platform gave. */
  url(pathOrLink: string): string;
  /** The platform refused even a renewed token: the session is over (throws SessionEnded). */
  endSession(): never;
}

/** Where API calls go: the API's base (the platform, or the proxy before it), and the platform itself. */
export interface ApiAddresses {
  /** `apiBaseUrl` without a trailing slash: every call's address starts with it. */
  apiBase: string;
  platformOrigin: string;
  /** The path of `platformBaseUrl`, which the platform's own links carry and the API base replaces. */
  platformBasePath: string;
}

export function apiAddresses(config: Pick<AppConfig, 'apiBaseUrl' | 'platformBaseUrl'>): ApiAddresses {
  const apiBase = config.apiBaseUrl.replace(/\/+$/, '');
  const platform = new URL(config.platformBaseUrl);
  return {
    apiBase,
    platformOrigin: platform.origin,
    platformBasePath: platform.pathname.replace(/\/+$/, ''),
  };
}

/**
 * The absolute address of an API path or of a link the platform gave. Paths are relative to the spec's
 * `{base_url}`; links in answers may also be absolute. A link to any other address is refused: the
 * bearer token goes to the platform (or the proxy before it) only.
 */
export function apiUrl(addresses: ApiAddresses, pathOrLink: string): string {
  let path = pathOrLink;
  if (/^https?:\/\//i.test(pathOrLink)) {
    const link = new URL(pathOrLink);
    if (link.origin !== addresses.platformOrigin && link.origin !== new URL(addresses.apiBase).origin) {
      throw new Error(`The platform linked to another address (${link.origin}); it was not followed.`);
    }
    path = link.pathname + link.search;
  }
  if (!path.startsWith('/')) throw new Error(`Not an API path: ${pathOrLink}`);
  const { platformBasePath } = addresses;
  if (platformBasePath && path.startsWith(`${platformBasePath}/`)) path = path.slice(platformBasePath.length);
  return `${addresses.apiBase}${path}`;
}

/** What one PlatformHttp keeps between calls. */
interface HttpState {
  readonly addresses: ApiAddresses;
  readonly tokens: TokenSource;
  readonly onSessionEnded: () => void;
  /** The last token used, for requests that must start before the page goes (see `send`). */
  lastToken: string | null;
}

function endSession(state: HttpState): never {
  state.onSessionEnded();
  throw new SessionEnded();
}

async function currentToken(state: HttpState): Promise<string> {
  state.lastToken = (await state.tokens.accessToken()) ?? endSession(state);
  return state.lastToken;
}

async function renewedToken(state: HttpState): Promise<string> {
  const renewed = await state.tokens.renew().catch(() => null);
  state.lastToken = renewed?.access_token ?? endSession(state);
  return state.lastToken;
}

function withBearer(target: string, init: RequestInit, token: string): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${token}`);
  if (!headers.has('Accept')) headers.set('Accept', 'application/json');
  return fetch(target, { ...init, headers, credentials: 'omit' });
}

async function send(state: HttpState, pathOrLink: string, init: RequestInit): Promise<Response> {
  const target = apiUrl(state.addresses, pathOrLink);
  // A request sent as the page closes (keepalive) starts at once, with the token in hand: waiting
  // for one, even a moment, can be too late.
  const token = init.keepalive && state.lastToken ? state.lastToken : await currentToken(state);
  return renewedOn401(state, target, init, await withBearer(target, init, token));
}

/** `response`, or where the platform refused the token, the request made again with a renewed one. */
async function renewedOn401(
  state: HttpState,
  target: string,
  init: RequestInit,
  response: Response,
): Promise<Response> {
  if (response.status !== 401) return response;
  // Revoked, or expired earlier than announced (a platform may announce no lifetime at all).
  await response.body?.cancel().catch(() => undefined);
  const retried = await withBearer(target, init, await renewedToken(state));
  if (retried.status === 401) endSession(state);
  return retried;
}

/**
 * `onSessionEnded` runs when the platform refuses the token and no new one can be had; the call then
 * fails with SessionEnded, and the app asks the person to sign in again, keeping the page.
 */
export function createPlatformHttp(
  config: AppConfig,
  tokens: TokenSource,
  onSessionEnded: () => void,
): PlatformHttp {
  const state: HttpState = {
    addresses: apiAddresses(config),
    tokens,
    onSessionEnded,
    lastToken: null,
  };
  return {
    send: (pathOrLink, init = {}) => send(state, pathOrLink, init),
    readWith: (pathOrLink, token) => withBearer(apiUrl(state.addresses, pathOrLink), {}, token),
    answered: (pathOrLink, response) =>
      renewedOn401(state, apiUrl(state.addresses, pathOrLink), {}, response),
    accessToken: () => currentToken(state),
    renewedToken: () => renewedToken(state),
    url: (pathOrLink) => apiUrl(state.addresses, pathOrLink),
    endSession: () => endSession(state),
  };
}
