import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { type SpecTokenAnswer, tokenAnswer } from '../../../src/testing/spec-examples';
import type { SpecClient } from './options';

export type Scope = 'basic' | 'full';

/** What one consent gave one client: the refresh token and every access token hang off it. */
interface Grant {
  email: string;
  clientId: string;
  scope: Scope;
  refreshToken: string;
  ended: boolean;
}

interface AuthorizationCode {
  clientId: string;
  email: string;
  scope: Scope;
  state: string;
  expiresAt: number;
}

/** Spec 2.1's flat token object. */
export type TokenResponse = SpecTokenAnswer;

/** Not shown in the spec; one minute is the usual life of an authorization code (RFC 6749 §4.1.2). */
const codeLifetimeMs = 60_000;

const newToken = () => randomBytes(32).toString('base64url');

export function sameSecret(a: string, b: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/** Browser sign-ins, authorization codes and tokens, all in memory. */
export class OAuthStore {
  private readonly browserSessions = new Map<string, { email: string; csrfToken: string }>();
  private readonly codes = new Map<string, AuthorizationCode>();
  private readonly accessTokens = new Map<string, { grant: Grant; expiresAt: number }>();
  private readonly refreshTokens = new Map<string, Grant>();

  constructor(
    private readonly clients: readonly SpecClient[],
    private readonly accessTokenTtlMs: number,
    private readonly clock: () => number,
  ) {}

  client(clientId: string): SpecClient | undefined {
    return this.clients.find((client) => client.client_id === clientId);
  }

  authenticateClient(clientId: unknown, clientSecret: unknown): SpecClient | undefined {
    if (typeof clientId !== 'string' || typeof clientSecret !== 'string') return undefined;
    const client = this.client(clientId);
    return client && sameSecret(client.client_secret, clientSecret) ? client : undefined;
  }

  startBrowserSession(email: string): string {
    const id = newToken();
    this.browserSessions.set(id, { email, csrfToken: newToken() });
    return id;
  }

  browserSession(id: string | undefined) {
    return id === undefined ? undefined : this.browserSessions.get(id);
  }

  issueCode(grant: Omit<AuthorizationCode, 'expiresAt'>): string {
    const code = newToken();
    this.codes.set(code, { ...grant, expiresAt: this.clock() + codeLifetimeMs });
    return code;
  }

  /** Single use: the code is gone after the first attempt, whether or not it succeeds. */
  redeemCode(code: string, clientId: string, state: unknown): TokenResponse | undefined {
    const found = this.codes.get(code);
    this.codes.delete(code);
    if (!found || found.expiresAt < this.clock() || found.clientId !== clientId) return undefined;
    // The spec's token request carries the state of 4.1; it must be the one the code was issued for.
    if (state !== found.state) return undefined;
    const grant: Grant = {
      email: found.email,
      clientId,
      scope: found.scope,
      refreshToken: newToken(),
      ended: false,
    };
    this.refreshTokens.set(grant.refreshToken, grant);
    return this.issueAccessToken(grant);
  }

  /** Rotation: the old refresh token stops working; access tokens already issued run to their expiry. */
  refresh(refreshToken: string, clientId: string): TokenResponse | undefined {
    const grant = this.refreshTokens.get(refreshToken);
    if (!grant || grant.ended || grant.clientId !== clientId) return undefined;
    this.refreshTokens.delete(refreshToken);
    grant.refreshToken = newToken();
    this.refreshTokens.set(grant.refreshToken, grant);
    return this.issueAccessToken(grant);
  }

  /** RFC 7009: a refresh or access token ends its whole grant; an unknown token is not an error. */
  revoke(token: string, clientId: string): void {
    const grant = this.refreshTokens.get(token) ?? this.accessTokens.get(token)?.grant;
    if (grant && grant.clientId === clientId) grant.ended = true;
  }

  /** Who a bearer token speaks for, or undefined when it is unknown, expired or revoked. */
  authenticate(accessToken: string): { email: string; scope: Scope } | undefined {
    const found = this.accessTokens.get(accessToken);
    if (!found || found.grant.ended || found.expiresAt <= this.clock()) return undefined;
    return { email: found.grant.email, scope: found.grant.scope };
  }

  private issueAccessToken(grant: Grant): TokenResponse {
    const accessToken = newToken();
    this.accessTokens.set(accessToken, { grant, expiresAt: this.clock() + this.accessTokenTtlMs });
    return tokenAnswer(accessToken, grant.refreshToken);
  }
}
