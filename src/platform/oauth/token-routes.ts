import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { isSupportedGrant, supportedGrants, type GrantType } from '../../shared/api/oauth';
import { apiPaths } from '../../shared/api/paths';
import { oauthErrorSchema } from '../../shared/api/problem';
import type { OAuthContext } from './oauth-context';
import { refreshTokenWithGrant, revokeAccessTokenOfClient } from '../db/repositories/oauth';
import { OAuthError } from '../http/errors';
import { readByHandler } from '../http/route-schemas';
import { sha256 } from '../security/secrets';
import { authenticateClient, readOAuthRequest } from './client-auth';
import { grants } from './grants';
import { revokeGrant } from './tokens';

const tokenResponseSchema = z.object({
  token_type: z.literal('bearer'),
  access_token: z.string(),
  refresh_token: z.string(),
  expires_in: z.number().int(),
  scope: z.string(),
});

const tokenRequestSchema = z
  .object({
    grant_type: z
      .enum(supportedGrants)
      .optional()
      .describe('In the query (spec shape) or the body (RFC 6749 shape).'),
    client_id: z.string().optional(),
    client_secret: z.string().optional(),
    code: z.string().optional(),
    state: z
      .string()
      .optional()
      .describe('Required in the JSON shape; compared with the state given at authorize.'),
    redirect_uri: z.string().optional(),
    code_verifier: z.string().optional(),
    refresh_token: z.string().optional(),
    scope: z.string().optional(),
  })
  .describe('JSON (spec 4.2) or application/x-www-form-urlencoded (RFC 6749 4.1.3, 6).');

/** Both endpoints read either body shape (readOAuthRequest). */
const oauthBodyTypes = ['application/json', 'application/x-www-form-urlencoded'];

const noCache = (reply: FastifyReply) =>
  reply.header('cache-control', 'no-store').header('pragma', 'no-cache');

/** `grant_type` from the query (spec shape) or the body (form shape); the two must agree. */
function checkGrantType(query: Record<string, unknown>, fields: Record<string, string>): GrantType {
  const fromQuery = query.grant_type;
  if (Array.isArray(fromQuery)) throw new OAuthError('invalid_request', 'grant_type must be given once.');
  const fromBody = fields.grant_type;
  if (typeof fromQuery === 'string' && fromBody !== undefined && fromQuery !== fromBody) {
    throw new OAuthError('invalid_request', 'grant_type in the query and in the body disagree.');
  }
  const grantType = (typeof fromQuery === 'string' ? fromQuery : undefined) ?? fromBody;
  if (!grantType) throw new OAuthError('invalid_request', 'grant_type is required.');
  if (!isSupportedGrant(grantType)) {
    throw new OAuthError('unsupported_grant_type', `grant_type "${grantType}" is not supported.`);
  }
  return grantType;
}

// Stays whole: a flat table of two endpoints and their method fallbacks, each handing on to client-auth.ts
// and grants/ at once.
export async function tokenRoutes(app: FastifyInstance, { ctx }: { ctx: OAuthContext }) {
  const route = app.withTypeProvider<ZodTypeProvider>();
  const oauthConfig = {
    errorFormat: 'oauth' as const,
    rateLimit: { max: ctx.config.tokenRateLimit, timeWindow: 60_000 },
  };
  route.post(
    apiPaths.token,
    {
      config: oauthConfig,
      bodyLimit: 16 * 1024,
      ...readByHandler(
        {
          summary: 'Exchange an authorization code or a refresh token for tokens',
          tags: ['oauth'],
          querystring: z.object({ grant_type: z.string().optional() }).passthrough(),
          consumes: oauthBodyTypes,
          body: tokenRequestSchema.passthrough(),
          response: { 200: tokenResponseSchema, 400: oauthErrorSchema, 401: oauthErrorSchema },
        },
        "the body, by the grant's own steps, so that every refusal is an RFC 6749 error (invalid_request, invalid_grant, …) in the form or JSON shape the client used.",
      ),
    },
    async (request, reply) => {
      noCache(reply);
      const { shape, fields } = readOAuthRequest(request);
      const grantType = checkGrantType(request.query as Record<string, unknown>, fields);
      const client = await authenticateClient(ctx, request, fields);
      const tokens = await grants[grantType](ctx, client, { shape, fields });
      return reply.code(200).send(tokens);
    },
  );

  route.post(
    apiPaths.revoke,
    {
      config: oauthConfig,
      bodyLimit: 16 * 1024,
      ...readByHandler(
        {
          summary: 'Revoke a refresh token (and its family) or an access token (RFC 7009)',
          tags: ['oauth'],
          consumes: oauthBodyTypes,
          body: z
            .object({
              token: z.string(),
              token_type_hint: z.string().optional(),
              client_id: z.string().optional(),
              client_secret: z.string().optional(),
            })
            .passthrough(),
          response: {
            200: z.undefined().describe('Empty body'),
            400: oauthErrorSchema,
            401: oauthErrorSchema,
          },
        },
        'the body, by the handler, so that every refusal is an RFC 6749 error in the shape the client used (RFC 7009 2.2.1).',
      ),
    },
    async (request, reply) => {
      noCache(reply);
      const { fields } = readOAuthRequest(request);
      const client = await authenticateClient(ctx, request, fields);
      if (!fields.token) throw new OAuthError('invalid_request', 'token is required.');
      const hash = sha256(fields.token);
      const refreshToken = await refreshTokenWithGrant(ctx.db, hash);
      if (refreshToken && refreshToken.client_id === client.client_id) {
        await revokeGrant(ctx, ctx.db, refreshToken.grant_id);
      } else {
        // Unknown tokens and other clients' tokens: 200 and no effect (RFC 7009 2.2).
        await ctx.accessTokens.forgetToken(hash);
        await revokeAccessTokenOfClient(ctx.db, hash, client.client_id, ctx.clock());
      }
      return reply.code(200).send(undefined);
    },
  );

  // Any other method on these endpoints still answers in RFC 6749's error format (T11).
  for (const url of [apiPaths.token, apiPaths.revoke]) {
    app.route({
      method: ['GET', 'PUT', 'DELETE', 'PATCH', 'HEAD'],
      url,
      config: oauthConfig,
      schema: { hide: true },
      handler: async (_request, reply) => {
        noCache(reply).header('allow', 'POST');
        throw new OAuthError('invalid_request', 'Use POST.', 405);
      },
    });
  }
}
