import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { oauthErrorAnswer, tokenAnswer, tokenRequestFields } from '../../testing/spec-examples';

/**
 * A stand-in for a platform that implements only platform-api.md: its token endpoint accepts nothing but
 * the spec's shape (grant_type in the query, a JSON body with exactly the spec's fields) and answers 400
 * to anything else. It records every request, so tests can check what the proxy sent and what it did not.
 * Every answer carries a Set-Cookie and a debug header that must never reach the browser (P7).
 */

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface IssuedCode {
  code: string;
  state: string;
  verifier: string;
}

/** Lets a test answer a request itself; return false to fall through to the strict default. */
export type Override = (request: ReceivedRequest, response: ServerResponse) => boolean | Promise<boolean>;

export const fakeClientId = 'asset-manager';

const random = (prefix: string) => `${prefix}-${randomBytes(12).toString('hex')}`;
const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export async function startFakePlatform(options: { secret?: string } = {}) {
  const secret = options.secret ?? random('client-secret');
  const received: ReceivedRequest[] = [];
  const revoked: string[] = [];
  const codes = new Map<string, { state: string; challenge: string }>();
  /** refresh token → still usable (false once rotated) */
  const refreshTokens = new Map<string, boolean>();
  const accessTokens: string[] = [];
  let override: Override | undefined;

  function send(response: ServerResponse, status: number, body: unknown) {
    response.writeHead(status, {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      'set-cookie': 'platform_session=must-not-leak; Path=/; HttpOnly',
      'x-upstream-debug': 'must-not-leak',
    });
    response.end(JSON.stringify(body));
  }
  const oauthError = (response: ServerResponse, status: number, error: string, description: string) =>
    send(response, status, oauthErrorAnswer(error, description));

  function issueTokens(response: ServerResponse) {
    const accessToken = random('access-token');
    const refreshToken = random('refresh-token');
    accessTokens.push(accessToken);
    refreshTokens.set(refreshToken, true);
    // Spec 2.1's object, with the two fields RFC 6749 5.1 adds that the proxy passes on to the app.
    send(response, 200, { ...tokenAnswer(accessToken, refreshToken), expires_in: 3600, scope: 'full' });
  }

  /** The spec's JSON body with exactly these keys (code_verifier may be absent), or undefined. */
  function specBody(request: ReceivedRequest, required: string[], optional: string[] = []) {
    if (request.headers['content-type'] !== 'application/json') return undefined;
    let body: unknown;
    try {
      body = JSON.parse(request.body);
    } catch {
      return undefined;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
    const fields = body as Record<string, unknown>;
    const keys = Object.keys(fields);
    if (!required.every((k) => keys.includes(k))) return undefined;
    if (!keys.every((k) => required.includes(k) || optional.includes(k))) return undefined;
    if (!keys.every((k) => typeof fields[k] === 'string')) return undefined;
    return fields as Record<string, string>;
  }

  function token(request: ReceivedRequest, response: ServerResponse) {
    const url = new URL(request.url, 'http://platform.invalid');
    const grantTypes = url.searchParams.getAll('grant_type');
    if ([...url.searchParams.keys()].length !== 1 || grantTypes.length !== 1) {
      return oauthError(response, 400, 'invalid_request', 'grant_type belongs in the query, once.');
    }
    const grantType = grantTypes[0];
    const fields =
      grantType === 'authorization_code'
        ? specBody(request, [...tokenRequestFields], ['code_verifier'])
        : grantType === 'refresh_token'
          ? specBody(request, ['client_id', 'client_secret', 'refresh_token'])
          : undefined;
    if (!fields) return oauthError(response, 400, 'invalid_request', 'Not the spec shape.');
    if (fields.client_id !== fakeClientId || fields.client_secret !== secret) {
      return oauthError(response, 401, 'invalid_client', 'Client authentication failed.');
    }
    if (grantType === 'authorization_code') {
      const issued = codes.get(fields.code!);
      codes.delete(fields.code!);
      if (!issued || issued.state !== fields.state) {
        return oauthError(response, 400, 'invalid_grant', 'The code is invalid.');
      }
      if (!fields.code_verifier || s256(fields.code_verifier) !== issued.challenge) {
        return oauthError(response, 400, 'invalid_grant', 'PKCE verification failed.');
      }
      return issueTokens(response);
    }
    const usable = refreshTokens.get(fields.refresh_token!);
    if (!usable) return oauthError(response, 400, 'invalid_grant', 'The refresh token is invalid.');
    refreshTokens.set(fields.refresh_token!, false);
    return issueTokens(response);
  }

  function revoke(request: ReceivedRequest, response: ServerResponse) {
    const fields = specBody(request, ['client_id', 'client_secret', 'token']);
    if (request.url !== '/v2/core/oauth/revoke' || !fields) {
      return oauthError(response, 400, 'invalid_request', 'Not the expected shape.');
    }
    if (fields.client_id !== fakeClientId || fields.client_secret !== secret) {
      return oauthError(response, 401, 'invalid_client', 'Client authentication failed.');
    }
    revoked.push(fields.token!);
    refreshTokens.set(fields.token!, false);
    response.writeHead(200, { 'set-cookie': 'platform_session=must-not-leak' }).end();
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      void (async () => {
        if (override && (await override(request, res))) return;
        const path = request.url.split('?')[0];
        if (request.method === 'POST' && path === '/v2/core/oauth/token') return token(request, res);
        if (request.method === 'POST' && path === '/v2/core/oauth/revoke') return revoke(request, res);
        return oauthError(res, 404, 'invalid_request', 'No such endpoint.');
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    secret,
    received,
    revoked,
    accessTokens,
    refreshTokens,
    /** What the platform's authorize step would have produced for a PKCE flow. */
    issueCode(): IssuedCode {
      const issued = {
        code: random('code'),
        state: random('state'),
        verifier: randomBytes(32).toString('base64url'),
      };
      codes.set(issued.code, { state: issued.state, challenge: s256(issued.verifier) });
      return issued;
    },
    override(handler: Override | undefined) {
      override = handler;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type FakePlatform = Awaited<ReturnType<typeof startFakePlatform>>;
