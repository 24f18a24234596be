import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type Me, meSchema } from '../../shared/api/me';
import { apiPaths } from '../../shared/api/paths';
import { problemSchema } from '../../shared/api/problem';
import type { PlatformContext } from '../context';
import { notFound } from '../errors';

/**
 * The entities a user owns, by assetable type (decisions.md: every assetable entity has an owner);
 * accreditations with their review status.
 */
export async function ownedEntities(ctx: PlatformContext, userId: number): Promise<Me['entities']> {
  const { db } = ctx;
  const [products, investments, teamMembers, accreditations, indications] = await Promise.all([
    db.selectFrom('products').select(['id', 'name']).where('owner_id', '=', userId).orderBy('id').execute(),
    db
      .selectFrom('investments')
      .select(['id', 'name'])
      .where('owner_id', '=', userId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('team_members')
      .innerJoin('products', 'products.id', 'team_members.product_id')
      .select(['team_members.id', 'team_members.name'])
      .where('products.owner_id', '=', userId)
      .orderBy('team_members.id')
      .execute(),
    db
      .selectFrom('accreditations')
      .select(['id', 'name', 'status'])
      .where('owner_id', '=', userId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('indications_of_interest')
      .select(['id', 'name'])
      .where('owner_id', '=', userId)
      .orderBy('id')
      .execute(),
  ]);
  const user = await db
    .selectFrom('users')
    .select(['id', 'name'])
    .where('id', '=', userId)
    .executeTakeFirst();
  return [
    ...(user ? [{ type: 'User' as const, ...user }] : []),
    ...products.map((e) => ({ type: 'Product' as const, ...e })),
    ...investments.map((e) => ({ type: 'Investment' as const, ...e })),
    ...teamMembers.map((e) => ({ type: 'TeamMember' as const, ...e })),
    ...accreditations.map((e) => ({ type: 'Accreditation' as const, ...e })),
    ...indications.map((e) => ({ type: 'IndicationOfInterest' as const, ...e })),
  ];
}

export async function meRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
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
      const user = await ctx.db
        .selectFrom('users')
        .select(['id', 'email', 'name', 'role'])
        .where('id', '=', request.caller.userId)
        .executeTakeFirst();
      if (!user) throw notFound();
      return { user, entities: await ownedEntities(ctx, user.id) };
    },
  );
}
