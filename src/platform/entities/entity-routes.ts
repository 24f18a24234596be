import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { entityPath, entityPaths } from '../../shared/api/entities';
import { assetableTypes, type AssetableType } from '../../shared/api/me';
import { problemSchema } from '../../shared/api/problem';
import { assetSchema } from '../../shared/assets/asset';
import { fileTypes } from '../../shared/assets/file-types';
import { entityAssetRows, toApiAsset } from '../assets/asset-records';
import { idParams } from '../assets/asset-routes';
import type { PlatformContext } from '../context';
import { forbidden, notFound, validationFailed } from '../errors';
import { canSeeAsset, entityAccess, findEntity } from './entities';

const problems = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, problemSchema]));
const assetsSchema = z.array(assetSchema);

/** The entity if the caller may see it (else 404), and the assets of it they may see. */
async function visibleEntity(ctx: PlatformContext, request: FastifyRequest, type: AssetableType, id: number) {
  const entity = await findEntity(ctx, type, id);
  const access = entity ? entityAccess(request.caller, entity) : 'none';
  if (!entity || access === 'none') throw notFound(`No ${type} ${id}.`);
  const assets = (await entityAssetRows(ctx, type, id))
    .filter(({ row }) => canSeeAsset(request.caller, access, row))
    .map(({ row, thumbnailId }) => toApiAsset(row, thumbnailId));
  return { entity, access, assets };
}

const linksOf = (type: AssetableType, id: number) => ({ assets: `${entityPath(type, id)}/assets` });

/** An accreditation with its review state and owner, as the review endpoints answer it. */
async function accreditationView(ctx: PlatformContext, id: number) {
  const a = await ctx.db
    .selectFrom('accreditations')
    .innerJoin('users', 'users.id', 'accreditations.owner_id')
    .select([
      'accreditations.id',
      'accreditations.name',
      'accreditations.status',
      'accreditations.review_note',
      'accreditations.reviewed_at',
      'users.id as owner_id',
      'users.name as owner_name',
      'users.email as owner_email',
    ])
    .where('accreditations.id', '=', id)
    .executeTakeFirstOrThrow();
  return {
    id: a.id,
    name: a.name,
    status: a.status,
    review_note: a.review_note,
    reviewed_at: a.reviewed_at === null ? null : new Date(a.reviewed_at).toISOString(),
    owner: { id: a.owner_id, name: a.owner_name, email: a.owner_email },
    links: linksOf('Accreditation', a.id),
  };
}

const accreditationSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  status: z.enum(['pending', 'approved', 'rejected']),
  review_note: z.string().nullable(),
  reviewed_at: z.string().nullable(),
  owner: z.object({ id: z.number().int(), name: z.string(), email: z.string() }),
  links: z.object({ assets: z.string() }),
});

/**
 * Entity resources with their assets sideloaded and linked (decisions.md), the catalog, and the
 * admins' accreditation review.
 */
export async function entityRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const route = app.withTypeProvider<ZodTypeProvider>();

  for (const type of assetableTypes) {
    const { plural, singular } = entityPaths[type];
    route.get(
      `/v2/core/${plural}/:id`,
      {
        schema: {
          summary: `Get a ${type} with its assets`,
          tags: ['entities'],
          security: [{ bearer: [] }],
          params: idParams,
          response: {
            200: z.object({
              [singular]: z
                .object({ id: z.number().int(), name: z.string(), links: z.object({ assets: z.string() }) })
                .passthrough(),
              assets: assetsSchema,
            }),
            ...problems(401, 404),
          },
        },
      },
      async (request) => {
        const { entity, assets } = await visibleEntity(ctx, request, type, request.params.id);
        return {
          [singular]:
            type === 'Accreditation'
              ? await accreditationView(ctx, entity.id)
              : { id: entity.id, name: entity.name, links: linksOf(type, entity.id) },
          assets,
        };
      },
    );
    route.get(
      `/v2/core/${plural}/:id/assets`,
      {
        schema: {
          summary: `The assets of a ${type}`,
          tags: ['entities'],
          security: [{ bearer: [] }],
          params: idParams,
          response: { 200: z.object({ assets: assetsSchema }), ...problems(401, 404) },
        },
      },
      async (request) => ({ assets: (await visibleEntity(ctx, request, type, request.params.id)).assets }),
    );
  }

  route.get(
    '/v2/core/file_types',
    {
      schema: {
        summary: 'The file-type catalog (spec 2.3) with our per-type rules',
        tags: ['assets'],
        security: [{ bearer: [] }],
        response: {
          200: z.object({ file_types: z.array(z.record(z.string(), z.unknown())) }),
          ...problems(401),
        },
      },
    },
    async () => ({
      file_types: fileTypes.map((t) => ({
        file_type: t.fileType,
        assetable_type: t.assetableType,
        assetable_type_is_ours: t.assetableTypeIsOurs,
        document_type: t.documentType,
        thumbifiable: t.thumbifiable,
        purpose: t.purpose,
        accepts: t.accepts,
        max_bytes: t.maxBytes,
        private_by_default: t.privateByDefault,
        crop_aspect: t.cropAspect ?? null,
      })),
    }),
  );

  const requireAdmin = (request: FastifyRequest) => {
    if (request.caller.role !== 'admin' || request.caller.scope !== 'full')
      throw forbidden('Only admins review accreditations.');
  };

  route.get(
    '/v2/core/accreditations',
    {
      schema: {
        summary: 'Accreditations to review (admins)',
        tags: ['review'],
        security: [{ bearer: [] }],
        querystring: z.object({ status: z.enum(['pending', 'approved', 'rejected']).default('pending') }),
        response: {
          200: z.object({ accreditations: z.array(accreditationSchema.extend({ assets: assetsSchema })) }),
          ...problems(401, 403, 422),
        },
      },
    },
    async (request) => {
      requireAdmin(request);
      const rows = await ctx.db
        .selectFrom('accreditations')
        .select('id')
        .where('status', '=', request.query.status)
        .orderBy('id')
        .execute();
      const accreditations = [];
      for (const row of rows) {
        const { assets } = await visibleEntity(ctx, request, 'Accreditation', row.id);
        accreditations.push({ ...(await accreditationView(ctx, row.id)), assets });
      }
      return { accreditations };
    },
  );

  route.put(
    '/v2/core/accreditations/:id',
    {
      schema: {
        summary: 'Record a review decision (admins)',
        tags: ['review'],
        security: [{ bearer: [] }],
        params: idParams,
        body: z.object({
          accreditation: z
            .object({ status: z.enum(['approved', 'rejected']), note: z.string().max(2000).optional() })
            .strict(),
        }),
        response: {
          200: z.object({ accreditation: accreditationSchema }),
          ...problems(400, 401, 403, 404, 415, 422),
        },
      },
    },
    async (request) => {
      requireAdmin(request);
      const entity = await findEntity(ctx, 'Accreditation', request.params.id);
      if (!entity) throw notFound(`No Accreditation ${request.params.id}.`);
      const { status, note } = request.body.accreditation;
      if (status === 'rejected' && !note?.trim()) {
        throw validationFailed([
          { field: 'accreditation.note', message: 'say why the accreditation is rejected' },
        ]);
      }
      await ctx.db
        .updateTable('accreditations')
        .set({
          status,
          review_note: note?.trim() || null,
          reviewed_by: request.caller.userId,
          reviewed_at: ctx.clock(),
        })
        .where('id', '=', entity.id)
        .execute();
      return { accreditation: await accreditationView(ctx, entity.id) };
    },
  );
}
