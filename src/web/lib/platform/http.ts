import type { AppConfig } from '../../../shared/api/app-config';
import { SessionEnded } from './errors';
import type { FirstResponses } from './first-responses';

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
  /** The current token, for calls made outside fetch (uploads through XMLHttpRequest). */
  accessToken(): Promise<string>;
  /** A token renewed because the platform refused the current one (SessionEnded when it cannot be). */
  renewedToken(): Promise<string>;
  /** The absolute address of an API path or of a link the platform gave. */
  url(pathOrLink: string): string;
  /** The platform refused even a renewed token: the session is over (throws SessionEnded). */
  endSession(): never;
}

/**
 * `onSessionEnded` runs when the platform refuses the token and no new one can be had; the call then
 * fails with SessionEnded, and the app asks the person to sign in again, keeping the page.
 */
export function createPlatformHttp(
  config: AppConfig,
  tokens: TokenSource,
  onSessionEnded: () => void,
  first?: FirstResponses,
): PlatformHttp {
  const apiBase = config.apiBaseUrl.replace(/\/+$/, '');
  const platform = new URL(config.platformBaseUrl);
  const platformBasePath = platform.pathname.replace(/\/+$/, '');

  function ended(): never {
    onSessionEnded();
    throw new SessionEnded();
  }

  /**
   * Paths are relative to the spec's `{base_url}`; links in answers may also be absolute. A link to any
   * other address is refused: the bearer token goes to the platform (or the proxy before it) only.
   */
  function url(pathOrLink: string): string {
    let path = pathOrLink;
    if (/^https?:\/\//i.test(pathOrLink)) {
      const link = new URL(pathOrLink);
      if (link.origin !== platform.origin && link.origin !== new URL(apiBase).origin) {
        throw new Error(`The platform linked to another address (${link.origin}); it was not followed.`);
      }
      path = link.pathname + link.search;
    }
    if (!path.startsWith('/')) throw new Error(`Not an API path: ${pathOrLink}`);
    if (platformBasePath && path.startsWith(`${platformBasePath}/`))
      path = path.slice(platformBasePath.length);
    return `${apiBase}${path}`;
  }

  /** The last token used, for requests that must start before the page goes (see `send`). */
  let lastToken: string | null = null;

  async function accessToken(): Promise<string> {
    lastToken = (await tokens.accessToken()) ?? ended();
    return lastToken;
  }

  async function renewedToken(): Promise<string> {
    const renewed = await tokens.renew().catch(() => null);
    lastToken = renewed?.access_token ?? ended();
    return lastToken;
  }

  function attempt(target: string, init: RequestInit, token: string) {
    const headers = new Headers(init.headers);
    headers.set('Authorization', `Bearer ${token}`);
    if (!headers.has('Accept')) headers.set('Accept', 'application/json');
    return fetch(target, { ...init, headers, credentials: 'omit' });
  }

  /** The answer the page's start already has for a plain GET of `target`, if it asked for it. */
  async function firstAnswer(target: string, init: RequestInit): Promise<Response | null> {
    const plainGet =
      (init.method ?? 'GET') === 'GET' && init.body === undefined && init.headers === undefined;
    return (plainGet ? await first?.take(target)?.catch(() => null) : null) ?? null;
  }

  async function send(pathOrLink: string, init: RequestInit = {}): Promise<Response> {
    const target = url(pathOrLink);
    // A request sent as the page closes (keepalive) starts at once, with the token in hand: waiting
    // for one, even a moment, can be too late.
    const response =
      (await firstAnswer(target, init)) ??
      (await attempt(target, init, init.keepalive && lastToken ? lastToken : await accessToken()));
    if (response.status !== 401) return response;
    // Revoked, or expired earlier than announced (a platform may announce no lifetime at all).
    await response.body?.cancel().catch(() => undefined);
    const retried = await attempt(target, init, await renewedToken());
    if (retried.status === 401) ended();
    return retried;
  }

  const readWith = (pathOrLink: string, token: string) => attempt(url(pathOrLink), {}, token);

  return { send, readWith, accessToken, renewedToken, url, endSession: ended };
}
