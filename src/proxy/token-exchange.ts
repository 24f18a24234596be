import { createHash } from 'node:crypto';
import { z } from 'zod';
import { apiPaths } from '../shared/api/paths';
import type { OAuthErrorBody } from '../shared/api/problem';
import type { Secret } from './env';

/**
 * The proxy's only conversation with the platform: the token endpoint in exactly the spec's shape
 * (platform-api.md 4.2: `grant_type` in the query, a JSON body with the client credentials) and the
 * revocation endpoint decisions.md adds. Nothing from the browser's request reaches the platform but
 * the few values copied into the JSON body: no header, no cookie, no part of the URL (P2, P7).
 */

export interface PlatformClientOptions {
  platformBaseUrl: string;
  clientId: string;
  clientSecret: Secret;
  timeoutMs: number;
  /** Tests stub the network here; production uses Node's global fetch (undici). */
  fetch?: typeof fetch;
}

export type TokenGrant =
  | { grantType: 'authorization_code'; code: string; state: string; codeVerifier: string }
  | { grantType: 'refresh_token'; refreshToken: string };

/** What the browser may see of a token response: never the refresh token. */
export interface BrowserTokens {
  access_token: string;
  token_type: string;
  expires_in?: number;
  scope?: string;
}

export type ExchangeResult =
  | { ok: true; tokens: BrowserTokens; refreshToken?: string }
  | {
      ok: false;
      /** `refused`: the platform said no to this grant; `unavailable`: it could not answer properly. */
      kind: 'refused' | 'unavailable';
      status: number;
      body: OAuthErrorBody;
      retryAfter?: string;
    };

/** `offered: false`: the platform has no revocation endpoint (a spec-only platform). */
export type RevokeResult = { ok: true; offered: boolean } | Extract<ExchangeResult, { ok: false }>;

/** RFC 6749 5.2: the only error codes a token endpoint may answer; anything else becomes server_error. */
const tokenErrorCodes = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
]);

/** RFC 6749 5.2 allows only these characters in error_description; anything else is dropped, not fixed. */
const descriptionPattern = /^[\x20-\x21\x23-\x5B\x5D-\x7E]{1,300}$/;

/** Platform responses are tiny; a larger one is not a token response and is not buffered. */
const maxUpstreamBodyBytes = 64 * 1024;

/** What the proxy accepts as a token answer: spec 2.1, with the usual RFC 6749 additions allowed. */
export const tokenResponseSchema = z.object({
  access_token: z.string().min(1).max(4096),
  token_type: z.string().min(1).max(64),
  refresh_token: z.string().min(1).max(4096).optional(),
  expires_in: z.number().int().nonnegative().optional(),
  scope: z.string().max(1024).optional(),
});

const serverError = (status = 502): Extract<ExchangeResult, { ok: false }> => ({
  ok: false,
  kind: 'unavailable',
  status,
  body: { error: 'server_error' },
});

/** Refresh tokens are secrets: only their hash is kept while a refresh is in flight. */
const refreshKey = (refreshToken: string) => createHash('sha256').update(refreshToken).digest('base64url');

export class PlatformClient {
  /** Fixed at construction from configuration: no request can change where the secret goes (P2). */
  readonly tokenUrls: Readonly<Record<TokenGrant['grantType'], string>>;
  readonly revokeUrl: string;
  readonly #options: PlatformClientOptions;
  readonly #fetch: typeof fetch;
  /** Concurrent refreshes with one cookie (two tabs reloading) share one upstream call: a second
   *  call would present an already rotated token, and the platform would revoke the whole family. */
  readonly #refreshesInFlight = new Map<string, Promise<ExchangeResult>>();

  constructor(options: PlatformClientOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? fetch;
    const tokenUrl = (grantType: string) => {
      const url = new URL(`${options.platformBaseUrl}${apiPaths.token}`);
      url.searchParams.set('grant_type', grantType);
      return url.href;
    };
    this.tokenUrls = {
      authorization_code: tokenUrl('authorization_code'),
      refresh_token: tokenUrl('refresh_token'),
    };
    this.revokeUrl = new URL(`${options.platformBaseUrl}${apiPaths.revoke}`).href;
  }

  exchange(grant: TokenGrant): Promise<ExchangeResult> {
    if (grant.grantType === 'authorization_code') {
      return this.#callTokenEndpoint(grant.grantType, {
        client_id: this.#options.clientId,
        client_secret: this.#options.clientSecret.reveal(),
        code: grant.code,
        state: grant.state,
        code_verifier: grant.codeVerifier,
      });
    }
    const key = refreshKey(grant.refreshToken);
    const inFlight = this.#refreshesInFlight.get(key);
    if (inFlight) return inFlight;
    const call = this.#callTokenEndpoint(grant.grantType, {
      client_id: this.#options.clientId,
      client_secret: this.#options.clientSecret.reveal(),
      refresh_token: grant.refreshToken,
    }).finally(() => this.#refreshesInFlight.delete(key));
    this.#refreshesInFlight.set(key, call);
    return call;
  }

  /** Whether a refresh with this token is on its way to the platform already (another tab's). */
  isRefreshing(refreshToken: string): boolean {
    return this.#refreshesInFlight.has(refreshKey(refreshToken));
  }

  /** RFC 7009 revocation; a platform without the endpoint (404 or 405: spec-only) says so. */
  async revoke(token: string): Promise<RevokeResult> {
    const answer = await this.#post(this.revokeUrl, {
      client_id: this.#options.clientId,
      client_secret: this.#options.clientSecret.reveal(),
      token,
    });
    if ('failure' in answer) return answer.failure;
    const { response } = answer;
    await response.body?.cancel().catch(() => undefined);
    if (response.ok) return { ok: true, offered: true };
    if (response.status === 404 || response.status === 405) return { ok: true, offered: false };
    return serverError();
  }

  async #callTokenEndpoint(
    grantType: TokenGrant['grantType'],
    body: Record<string, string>,
  ): Promise<ExchangeResult> {
    const answer = await this.#post(this.tokenUrls[grantType], body);
    if ('failure' in answer) return answer.failure;
    const { response } = answer;
    const status = response.status;

    if (status === 429 || status === 503) {
      await response.body?.cancel().catch(() => undefined);
      const retryAfter = response.headers.get('retry-after') ?? undefined;
      return {
        ok: false,
        kind: 'unavailable',
        status: 503,
        body: { error: 'temporarily_unavailable' },
        ...(retryAfter && /^\d{1,6}$/.test(retryAfter) ? { retryAfter } : {}),
      };
    }
    // Redirects (never followed: a 307 would carry the secret elsewhere), other 4xx and 5xx.
    if (!(status >= 200 && status < 300) && status !== 400 && status !== 401) {
      await response.body?.cancel().catch(() => undefined);
      return serverError();
    }

    const read = await readJson(response);
    if ('failure' in read) return read.failure;
    const json = read.value;

    if (status === 400 || status === 401) {
      return { ok: false, kind: 'refused', status, body: filterError(json) };
    }
    const parsed = tokenResponseSchema.safeParse(json);
    if (!parsed.success) return serverError();
    const { refresh_token: refreshToken, ...rest } = parsed.data;
    const tokens: BrowserTokens = {
      access_token: rest.access_token,
      token_type: rest.token_type,
      ...(rest.expires_in !== undefined ? { expires_in: rest.expires_in } : {}),
      ...(rest.scope !== undefined ? { scope: rest.scope } : {}),
    };
    return { ok: true, tokens, ...(refreshToken ? { refreshToken } : {}) };
  }

  /** One POST of a JSON body with a deadline; only the configured URL, only these headers. */
  async #post(
    url: string,
    body: Record<string, string>,
  ): Promise<{ response: Response } | { failure: Extract<ExchangeResult, { ok: false }> }> {
    try {
      const response = await this.#fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        redirect: 'manual',
        // Covers reading the body too: a platform that stalls mid-response still ends in a 504.
        signal: AbortSignal.timeout(this.#options.timeoutMs),
      });
      return { response };
    } catch (error) {
      return { failure: networkFailure(error) };
    }
  }
}

function networkFailure(error: unknown): Extract<ExchangeResult, { ok: false }> {
  const name = (error as { name?: string } | undefined)?.name;
  if (name === 'TimeoutError' || name === 'AbortError') {
    return { ok: false, kind: 'unavailable', status: 504, body: { error: 'temporarily_unavailable' } };
  }
  return { ok: false, kind: 'unavailable', status: 502, body: { error: 'temporarily_unavailable' } };
}

/** The body as JSON; a body that is not JSON or too large, or a stall while reading, is a failure. */
async function readJson(
  response: Response,
): Promise<{ value: unknown } | { failure: Extract<ExchangeResult, { ok: false }> }> {
  let text: string | undefined;
  try {
    text = await readCapped(response, maxUpstreamBodyBytes);
  } catch (error) {
    return { failure: networkFailure(error) };
  }
  if (text === undefined) return { failure: serverError() };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    // The parser's message quotes the body, which may hold anything: it is deliberately dropped.
    return { failure: serverError() };
  }
}

async function readCapped(response: Response, limit: number): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Only `error` from RFC 6749's list and a well-formed `error_description` pass (P7). */
export function filterError(json: unknown): OAuthErrorBody {
  const source = (typeof json === 'object' && json !== null ? json : {}) as Record<string, unknown>;
  const error =
    typeof source.error === 'string' && tokenErrorCodes.has(source.error) ? source.error : 'server_error';
  const description = source.error_description;
  return typeof description === 'string' && descriptionPattern.test(description)
    ? { error, error_description: description }
    : { error };
}
