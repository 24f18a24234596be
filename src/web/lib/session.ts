import { ErrorResponse, User, UserManager, WebStorageStateStore, type IdTokenClaims } from 'oidc-client-ts';
import type { AppConfig } from '../../shared/api/app-config';
import { grantTypes } from '../../shared/api/oauth';
import {
  proxyHeaders,
  readAlongField,
  signOutOutcomes,
  type ProxyTokenResponse,
  type ReadAlong,
  type SignOutOutcome,
  type SignOutResponse,
} from '../../shared/api/proxy';
import { forgetEverything } from './browser-memory';

export type { ReadAlong, SignOutOutcome };

/**
 * A hint, not a secret: the refresh cookie is HttpOnly, so the app cannot see whether it holds one. The
 * hint saves a token request that can only fail for people who never signed in on this browser.
 */
const sessionHintKey = 'asset-manager.session';

/**
 * Set by signing out, cleared by the next sign-in: that sign-in asks the platform to take the
 * password again (OpenID Connect's `prompt=login`), since the platform's own sign-in outlives the
 * app's session and the next person at a shared computer must not walk into the last one's files.
 * A platform that knows no `prompt` ignores it.
 */
const signedOutKey = 'asset-manager.signed-out';

/** Renew this long before the access token expires, so no request meets an expired token. */
const renewalMarginSeconds = 60;

/**
 * The platform's token request carries the `state` of the authorize redirect (spec 4.2), which
 * oidc-client-ts does not send. Its stored sign-in state keeps extra token parameters, and its key is the
 * state value itself, so this store adds `state` to them when the callback reads it back.
 */
class StateCarryingStore extends WebStorageStateStore {
  override async get(key: string) {
    return withState(key, await super.get(key));
  }
  override async remove(key: string) {
    return withState(key, await super.remove(key));
  }
}

function withState(key: string, stored: string | null): string | null {
  if (stored === null) return null;
  const state = JSON.parse(stored) as { extraTokenParams?: Record<string, unknown> };
  return JSON.stringify({ ...state, extraTokenParams: { ...state.extraTokenParams, state: key } });
}

/** Why a sign-in could not be completed; the callback page words each one for people. */
export type SignInFailure = 'declined' | 'state' | 'expired' | 'unreachable' | 'other';

export class SignInError extends Error {
  constructor(
    readonly reason: SignInFailure,
    readonly detail?: string,
  ) {
    super(`Sign-in failed: ${reason}`);
  }
}

function classify(error: unknown): SignInError {
  if (error instanceof ErrorResponse) {
    if (error.error === 'access_denied') return new SignInError('declined');
    if (error.error === 'invalid_grant') return new SignInError('expired');
    if (error.error === 'temporarily_unavailable' || error.error === 'server_error') {
      return new SignInError('unreachable');
    }
    return new SignInError('other', error.error_description ?? error.error ?? undefined);
  }
  const message = error instanceof Error ? error.message : String(error);
  // oidc-client-ts's words for a callback whose state this browser never stored, or stored and used.
  if (/no matching state|no state in response/i.test(message)) return new SignInError('state');
  if (error instanceof TypeError || /timeout|network|failed to fetch/i.test(message)) {
    return new SignInError('unreachable');
  }
  return new SignInError('other', message);
}

/** Where the session stands as the app starts, with what was read along with a renewal. */
export interface SessionStart {
  token: string | null;
  reads: ReadAlong[];
}

/**
 * The browser's side of the session. oidc-client-ts runs the authorization-code flow with PKCE and
 * checks `state`; the proxy holds the refresh token in an HttpOnly cookie (P9), so renewal is a plain
 * refresh request to the proxy, which oidc-client-ts cannot make without a refresh token of its own.
 * The access token lives in sessionStorage: it survives a reload, not the tab.
 */
export class Session {
  readonly #config: AppConfig;
  readonly #manager: UserManager;
  #renewing: Promise<{ user: User | null; reads: ReadAlong[] }> | null = null;
  #renewalTimer: ReturnType<typeof setTimeout> | undefined;
  #listeners = new Set<() => void>();
  #signedIn = false;
  #ended = false;
  /** Signing out on purpose: requests cut short by it are not an ended session to report. */
  #leaving = false;

  constructor(config: AppConfig) {
    this.#config = config;
    const authBase = config.platformAuthUrl.replace(/\/+$/, '');
    this.#manager = new UserManager({
      authority: authBase,
      client_id: config.clientId,
      redirect_uri: config.redirectUri,
      response_type: 'code',
      scope: config.scope,
      // Static metadata: the spec defines no discovery document, and the token endpoint is the proxy's.
      metadata: {
        issuer: authBase,
        authorization_endpoint: `${authBase}/auth/login/oauth/authorize`,
        token_endpoint: new URL(config.tokenEndpoint, window.location.origin).href,
        revocation_endpoint: new URL(config.revokeEndpoint, window.location.origin).href,
      },
      extraHeaders: { ...proxyHeaders },
      stateStore: new StateCarryingStore({ store: window.localStorage }),
      userStore: new WebStorageStateStore({ store: window.sessionStorage }),
      loadUserInfo: false,
      automaticSilentRenew: false,
      monitorSession: false,
    });
  }

  /** Called whenever the signed-in user changes (sign-in, renewal, sign-out). */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(signedIn: boolean) {
    this.#signedIn = signedIn;
    for (const listener of this.#listeners) listener();
  }

  /** Whether the last check found a session; `isSignedIn()` checks (and renews) for real. */
  get signedIn(): boolean {
    return this.#signedIn;
  }

  /**
   * The platform refused the session and it could not be renewed while a page was in use. The page
   * stays (with anything typed) and asks the person to sign in again, rather than dropping them.
   */
  get ended(): boolean {
    return this.#ended;
  }

  markEnded(): void {
    if (this.#ended || this.#leaving) return;
    this.#ended = true;
    this.#changed(false);
  }

  /** A usable access token, renewed first when it is about to expire; null when signed out. */
  async accessToken(): Promise<string | null> {
    const user = await this.#manager.getUser();
    if (user && !user.expired && (user.expires_in ?? Infinity) > 10) {
      this.#scheduleRenewal(user);
      if (!this.#signedIn) this.#changed(true);
      return user.access_token;
    }
    return (await this.renew())?.access_token ?? null;
  }

  /**
   * A new access token through the proxy's refresh cookie; null when there is no session to renew.
   * One renewal at a time, across tabs too: the platform rotates refresh tokens and treats a reused one
   * as theft, so two renewals racing with the same cookie would end the session.
   */
  async renew(): Promise<User | null> {
    return (await this.#renew([])).user;
  }

  /**
   * `read`: API paths for the proxy to read with the new token and answer along with it. `asked` is
   * told once the renewal's request has left (or none was needed; or another caller's is under way).
   */
  #renew(read: readonly string[], asked?: () => void) {
    if (this.#renewing) asked?.();
    this.#renewing ??= withLock('asset-manager.renew', () => this.#refresh(read, asked)).finally(() => {
      this.#renewing = null;
    });
    return this.#renewing;
  }

  /**
   * The session as the app starts, and the first page's reads with it (app/first-reads.ts): when the
   * session must be renewed, the proxy reads `read` with the new token and answers them along with it,
   * sparing the page a round trip (or three, with CORS) after the renewal. With a usable token already
   * here, or a renewal under way already, nothing is read along: the caller reads with the token.
   * `asked` settles as soon as the renewal's request has left (at once when none is needed), so that the
   * app's code, whose first run holds the main thread a while on a slow phone, can run meanwhile.
   */
  begin(read: readonly string[]): { asked: Promise<void>; started: Promise<SessionStart> } {
    let told!: () => void;
    const asked = new Promise<void>((resolve) => (told = resolve));
    const started = (async (): Promise<SessionStart> => {
      try {
        const user = await this.#manager.getUser();
        if (user && !user.expired && (user.expires_in ?? Infinity) > 10) {
          return { token: await this.accessToken(), reads: [] };
        }
        const renewed = await this.#renew(read, told);
        return { token: renewed.user?.access_token ?? null, reads: renewed.reads };
      } finally {
        told();
      }
    })();
    return { asked, started };
  }

  async #refresh(
    read: readonly string[],
    asked?: () => void,
  ): Promise<{ user: User | null; reads: ReadAlong[] }> {
    if (localStorage.getItem(sessionHintKey) === null) return { user: null, reads: [] };
    const form = new URLSearchParams({
      grant_type: grantTypes.refreshToken,
      client_id: this.#config.clientId,
    });
    // The proxy reads these with the new token and answers them along with it: one round trip.
    if (read.length > 0) form.set(readAlongField, read.join(' '));
    const request = fetch(this.#config.tokenEndpoint, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { ...proxyHeaders, 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form,
    });
    asked?.();
    const response = await request;
    if (response.status === 400 || response.status === 401) {
      // The refresh token is gone (expired, revoked or never there): the session is over.
      await this.#forget();
      return { user: null, reads: [] };
    }
    if (!response.ok) throw new Error(`The session could not be renewed (HTTP ${response.status}).`);
    const { reads, ...tokens } = (await response.json()) as ProxyTokenResponse;
    const user = new User({
      access_token: tokens.access_token,
      token_type: tokens.token_type,
      scope: tokens.scope ?? this.#config.scope,
      expires_at:
        tokens.expires_in === undefined ? undefined : Math.floor(Date.now() / 1000) + tokens.expires_in,
      profile: {} as IdTokenClaims,
    });
    await this.#manager.storeUser(user);
    this.#scheduleRenewal(user);
    this.#changed(true);
    return { user, reads: Array.isArray(reads) ? reads : [] };
  }

  #scheduleRenewal(user: User) {
    clearTimeout(this.#renewalTimer);
    const left = user.expires_in;
    if (left === undefined) return;
    // Short-lived tokens (tests use seconds) renew at 80% of their life rather than a minute before.
    const delay = Math.max(1, left > 5 * renewalMarginSeconds ? left - renewalMarginSeconds : left * 0.8);
    this.#renewalTimer = setTimeout(() => void this.renew().catch(() => undefined), delay * 1000);
  }

  async isSignedIn(): Promise<boolean> {
    return (await this.accessToken().catch(() => null)) !== null;
  }

  /** Sends the browser to the platform's sign-in; after it, the app returns to `returnTo`. */
  async signIn(returnTo: string): Promise<void> {
    const prompt = localStorage.getItem(signedOutKey) === null ? undefined : 'login';
    await this.#manager.signinRedirect({ state: { returnTo }, prompt });
  }

  /** Completes the sign-in on the callback page; returns where to go next. */
  async completeSignIn(url: string): Promise<{ returnTo: string }> {
    let user: User;
    try {
      user = await this.#manager.signinRedirectCallback(url);
    } catch (error) {
      throw classify(error);
    }
    localStorage.setItem(sessionHintKey, '1');
    localStorage.removeItem(signedOutKey);
    this.#ended = false;
    this.#leaving = false;
    this.#scheduleRenewal(user);
    this.#changed(true);
    const returnTo = (user.state as { returnTo?: unknown } | undefined)?.returnTo;
    return { returnTo: typeof returnTo === 'string' && returnTo.startsWith('/') ? returnTo : '/' };
  }

  /**
   * Ends the session at the platform (through the proxy, which revokes the refresh token) and forgets
   * everything this app stored. The app's session ends whatever the platform says (C5); the outcome
   * tells the person whether the platform could be told.
   */
  async signOut(): Promise<SignOutOutcome> {
    this.#leaving = true;
    let outcome: SignOutOutcome = 'unreachable';
    try {
      const response = await fetch(this.#config.revokeEndpoint, {
        method: 'POST',
        credentials: 'same-origin',
        headers: { ...proxyHeaders, 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: this.#config.clientId }),
      });
      const body = (await response.json().catch(() => ({}))) as Partial<SignOutResponse>;
      // The proxy's word, unless it is one this app does not know (then: not told, as unreachable).
      if (response.ok && body.platform !== undefined && signOutOutcomes.includes(body.platform))
        outcome = body.platform;
    } catch {
      // The proxy itself could not be reached: signed out here all the same.
    } finally {
      await this.#forget();
      forgetEverything();
      localStorage.setItem(signedOutKey, '1');
    }
    return outcome;
  }

  async #forget() {
    clearTimeout(this.#renewalTimer);
    localStorage.removeItem(sessionHintKey);
    await this.#manager.removeUser();
    await this.#manager.clearStaleState();
    sessionStorage.clear();
    this.#changed(false);
  }
}

/** Web Locks where the browser has them (every current one); otherwise the single-tab guard suffices. */
function withLock<T>(name: string, work: () => Promise<T>): Promise<T> {
  if (typeof navigator !== 'undefined' && navigator.locks) return navigator.locks.request(name, work);
  return work();
}
