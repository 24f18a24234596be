import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type Me, meSchema } from '../../shared/api/me';
import { apiPaths } from '../../shared/api/paths';
import { problemSchema } from '../../shared/api/problem';
import type { DB } from '../db/database';
import { entitiesOwnedBy, userProfile } from '../db/repositories/users';
import { notFound } from '../http/errors';

/**
 * The entities a user owns, by assetable type (decisions.md: every assetable entity has an owner);
 * accreditations with their review status.
 */
/** What /v2/core/me is given by the composition root. */
export interface UsersContext {
  db: DB;
}

export async function ownedEntities(ctx: UsersContext, userId: number): Promise<Me['entities']> {
  const [owned, user] = await Promise.all([entitiesOwnedBy(ctx.db, userId), userProfile(ctx.db, userId)]);
  return [
    ...(user ? [{ type: 'User' as const, id: user.id, name: user.name }] : []),
    ...owned.products.map((e) => ({ type: 'Product' as const, ...e })),
    ...owned.investments.map((e) => ({ type: 'Investment' as const, ...e })),
    ...owned.teamMembers.map((e) => ({ type: 'TeamMember' as const, ...e })),
    ...owned.accreditations.map((e) => ({ type: 'Accreditation' as const, ...e })),
    ...owned.indications.map((e) => ({ type: 'IndicationOfInterest' as const, ...e })),
  ];
}

export async function meRoutes(app: FastifyInstance, { ctx }: { ctx: UsersContext }) {
  app.withTypeProvider<ZodTypeProvider>().get(
    apiPaths.me,
    {
      schema: {
        summary: 'The signed-in user, their role and the entities they own',
        tags: ['users'],
        security: [{ bearer: [] }],
        response: { 200: meSchema, 401: problemSchema },
      },
    },
    async (request) => {
      const user = await userProfile(ctx.db, request.caller.userId);
      if (!user) throw notFound();
      return { user, entities: await ownedEntities(ctx, user.id) };
    },
  );
}
