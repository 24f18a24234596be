import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { supportedGrants } from '../../shared/api/oauth';
import { apiPaths } from '../../shared/api/paths';
import type { OAuthContext } from './oauth-context';
import { scopes } from '../../shared/api/oauth';
import { clientAuthMethods } from './client-auth';

const metadataSchema = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  revocation_endpoint: z.string(),
  response_types_supported: z.array(z.string()),
  response_modes_supported: z.array(z.string()),
  grant_types_supported: z.array(z.string()),
  code_challenge_methods_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  revocation_endpoint_auth_methods_supported: z.array(z.string()),
  scopes_supported: z.array(z.string()),
  authorization_response_iss_parameter_supported: z.boolean(),
});

/**
 * RFC 8414 authorization-server metadata (decisions.md "metadata"), so that standard clients
 * configure themselves. Built from the same constants the endpoints check against: clients (the
 * proxy among them) read from it whether revocation and the refresh grant exist.
 */
export async function metadataRoutes(app: FastifyInstance, { ctx }: { ctx: OAuthContext }) {
  const base = ctx.config.publicUrl;
  const metadata: z.infer<typeof metadataSchema> = {
    // The `iss` of every authorization response (RFC 9207), character for character.
    issuer: base,
    authorization_endpoint: base + apiPaths.authorize,
    token_endpoint: base + apiPaths.token,
    revocation_endpoint: base + apiPaths.revoke,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: [...supportedGrants],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...clientAuthMethods],
    revocation_endpoint_auth_methods_supported: [...clientAuthMethods],
    scopes_supported: [...scopes],
    authorization_response_iss_parameter_supported: true,
  };

  app.withTypeProvider<ZodTypeProvider>().get(
    apiPaths.oauthMetadata,
    {
      schema: {
        summary: 'Authorization-server metadata (RFC 8414)',
        tags: ['oauth'],
        response: { 200: metadataSchema },
      },
    },
    async (_request, reply) => reply.header('cache-control', 'public, max-age=3600').send(metadata),
  );
}
