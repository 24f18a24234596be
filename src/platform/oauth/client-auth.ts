import type { FastifyRequest } from 'fastify';
import type { OAuthContext } from './oauth-context';
import { OAuthError } from '../http/errors';
import { findClient, secretMatches } from './clients';

/** Fields of a token or revocation request, from whichever shape the client used. */
export interface OAuthRequestFields {
  /** `json`: the spec's shape (JSON body, grant_type in the query); `form`: RFC 6749's. */
  shape: 'json' | 'form';
  fields: Record<string, string>;
}

const credentialNames = ['client_secret', 'code', 'refresh_token', 'code_verifier', 'token', 'password'];

const oauthParameters = new Set([
  'grant_type',
  'client_id',
  'client_secret',
  'code',
  'state',
  'redirect_uri',
  'code_verifier',
  'refresh_token',
  'scope',
  'token',
  'token_type_hint',
]);

/** Reads the body (JSON object or form) and the query into single-valued string fields. */
export function readOAuthRequest(request: FastifyRequest): OAuthRequestFields {
  const query = (request.query ?? {}) as Record<string, unknown>;
  const inQuery = credentialNames.filter((name) => name in query);
  if (inQuery.length > 0) {
    throw new OAuthError(
      'invalid_request',
      `Credentials must be sent in the body, never in the URL (${inQuery.join(', ')}).`,
    );
  }
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'The body must be a JSON object or a form.');
  }
  const shape = request.headers['content-type']?.startsWith('application/json') ? 'json' : 'form';
  // JSON read as a form becomes one field named after the JSON text (or a few, split at `&`/`=`):
  // say what went wrong rather than "client authentication is required" (T11).
  if (shape === 'form' && Object.keys(body).some((name) => /^\s*[{[]/.test(name))) {
    throw new OAuthError(
      'invalid_request',
      'The body is JSON but the Content-Type says a form: send it with Content-Type: application/json.',
    );
  }
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
    // RFC 6749 3.1: unrecognized parameters are ignored; the ones we read must be single strings.
    if (!oauthParameters.has(name)) continue;
    if (typeof value !== 'string')
      throw new OAuthError('invalid_request', `${name} must be given once, as a string.`);
    fields[name] = value;
  }
  return { shape, fields };
}

function basicCredentials(request: FastifyRequest): { id: string; secret: string } | undefined {
  const header = request.headers.authorization;
  if (!header) return undefined;
  const match = /^Basic ([A-Za-z0-9+/=]+)$/i.exec(header);
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials.', 401, basicChallenge);
  try {
    // RFC 6749 2.3.1: both parts are form-urlencoded before being joined.
    return {
      id: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw new OAuthError('invalid_client', 'Malformed HTTP Basic credentials.', 401, basicChallenge);
  }
}

const basicChallenge = { 'www-authenticate': 'Basic realm="oauth"' };

/** The ways a client may authenticate, in RFC 8414's names: HTTP Basic, or fields in the body. */
export const clientAuthMethods = ['client_secret_basic', 'client_secret_post'] as const;

/** Authenticates the client by HTTP Basic or by body fields, never both (decisions.md). */
export async function authenticateClient(
  ctx: OAuthContext,
  request: FastifyRequest,
  fields: Record<string, string>,
) {
  const basic = basicCredentials(request);
  if (basic && fields.client_secret !== undefined) {
    throw new OAuthError(
      'invalid_request',
      'Send client credentials either in HTTP Basic or in the body, not both.',
    );
  }
  if (basic && fields.client_id !== undefined && fields.client_id !== basic.id) {
    throw new OAuthError('invalid_request', 'client_id in the body differs from HTTP Basic.');
  }
  const id = basic?.id ?? fields.client_id;
  const secret = basic?.secret ?? fields.client_secret;
  const challenge = basic ? basicChallenge : {};
  if (!id || secret === undefined)
    throw new OAuthError('invalid_client', 'Client authentication is required.', 401, challenge);
  const client = await findClient(ctx.db, id);
  if (!client || !secretMatches(client, secret)) {
    throw new OAuthError('invalid_client', 'Client authentication failed.', 401, challenge);
  }
  return client;
}
