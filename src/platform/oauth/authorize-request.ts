import { z } from 'zod';
import { isScope, scopes, type Scope } from '../../shared/api/oauth';
import type { OAuthClient } from '../db/schema';
import { PageError } from '../http/errors';
import type { DB } from '../db/database';
import { findClient, redirectUrisOf } from './clients';

export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string;
  scope: Scope;
  codeChallenge: string | null;
}

/** An error that may be sent back to the client's redirect URI (RFC 6749 4.1.2.1). */
export class RedirectableError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: 'invalid_request' | 'invalid_scope' | 'unsupported_response_type' | 'access_denied',
    description: string,
    readonly state: string | undefined,
  ) {
    super(description);
  }
}

type Params = Record<string, unknown>;
const single = (params: Params, name: string) => {
  const value = params[name];
  return typeof value === 'string' ? value : undefined;
};

const s256Challenge = /^[A-Za-z0-9_-]{43}$/;
const knownParams = [
  'client_id',
  'redirect_uri',
  'state',
  'scope',
  'response_type',
  'code_challenge',
  'code_challenge_method',
];

/**
 * The authorization request's query, for the OpenAPI document. Requests are checked by
 * parseAuthorizeRequest instead, in the order RFC 6749 demands (some errors are redirected).
 */
export const authorizeQuerySchema = z.object({
  client_id: z.string().describe('A registered client.'),
  redirect_uri: z.string().describe("One of the client's registered redirect URIs, byte for byte."),
  state: z.string().describe('Returned exactly as sent, with the code or the error.'),
  scope: z.enum(scopes).describe("basic: read only; full: everything the user's role allows."),
  response_type: z.enum(['code']).optional(),
  code_challenge: z
    .string()
    .optional()
    .describe('PKCE (RFC 7636): base64url SHA-256 of the code verifier, 43 characters.'),
  code_challenge_method: z.enum(['S256']).optional().describe('Required with code_challenge.'),
  prompt: z
    .string()
    .optional()
    .describe('OpenID Connect: `login` asks for the password again, even when signed in.'),
});

/**
 * Validates an authorization request in the order RFC 6749 demands: until client and redirect URI
 * are known to be good, errors are shown as a page (never a redirect, or we would be an open
 * redirector); after that, errors go back to the client with its `state`.
 */
export async function parseAuthorizeRequest(db: DB, params: Params): Promise<AuthorizeRequest> {
  const clientId = single(params, 'client_id');
  const client = clientId ? await findClient(db, clientId) : undefined;
  if (!client) {
    throw new PageError(
      400,
      'Unknown application',
      'This sign-in link names no application we know. Go back to the application and try again.',
    );
  }
  const redirectUri = single(params, 'redirect_uri');
  if (!redirectUri || !redirectUrisOf(client).includes(redirectUri)) {
    throw new PageError(
      400,
      'Invalid sign-in link',
      'The return address of this sign-in link is not registered for the application.',
    );
  }

  const state = single(params, 'state');
  const fail = (error: RedirectableError['error'], description: string) =>
    new RedirectableError(redirectUri, error, description, state);

  const duplicated = knownParams.filter((name) => Array.isArray(params[name]));
  if (duplicated.length > 0)
    throw fail('invalid_request', `Parameters must not repeat: ${duplicated.join(', ')}.`);
  if (!state) throw fail('invalid_request', 'The state parameter is required.');

  const responseType = single(params, 'response_type');
  if (responseType !== undefined && responseType !== 'code') {
    throw fail('unsupported_response_type', 'Only response_type=code is supported.');
  }

  const scope = single(params, 'scope');
  if (scope === undefined || scope === '') throw fail('invalid_request', 'The scope parameter is required.');
  if (!isScope(scope)) throw fail('invalid_scope', 'The scope must be "basic" or "full".');

  const challenge = single(params, 'code_challenge');
  const method = single(params, 'code_challenge_method');
  if (challenge !== undefined || method !== undefined) {
    if (method !== 'S256') throw fail('invalid_request', 'code_challenge_method must be S256.');
    if (!challenge || !s256Challenge.test(challenge)) {
      throw fail('invalid_request', 'code_challenge must be a base64url SHA-256 digest (43 characters).');
    }
  }

  return { client, redirectUri, state, scope, codeChallenge: challenge ?? null };
}

/** The request's parameters as hidden form fields, to carry them through the consent page. */
export function authorizeParams(request: AuthorizeRequest): Record<string, string> {
  return {
    client_id: request.client.client_id,
    redirect_uri: request.redirectUri,
    state: request.state,
    scope: request.scope,
    ...(request.codeChallenge
      ? { code_challenge: request.codeChallenge, code_challenge_method: 'S256' }
      : {}),
  };
}

/** The client's redirect URI with our parameters added (its own query is kept). */
export function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}
