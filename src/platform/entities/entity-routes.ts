import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accreditationSchema } from '../../shared/api/accreditations';
import { entityPath, entityPaths } from '../../shared/api/entities';
import { assetableTypes, type AssetableType } from '../../shared/api/me';
import { problemSchema } from '../../shared/api/problem';
import { productListSchema, productPartSchema, productSchema } from '../../shared/api/products';
import { assetSchema } from '../../shared/assets/asset';
import { fileTypes } from '../../shared/assets/file-types';
import { entityAssetRows, toApiAsset } from '../assets/asset-records';
import { idParams } from '../assets/asset-routes';
import type { PlatformContext } from '../context';
import { notFound } from '../errors';
import { decodeCursor, pageQuery } from '../paging';
import { accreditationView } from './accreditations';
import { canSeeAsset, type Entity, entityAccess, findEntity } from './entities';
import { productList, productOf, productParts, readableProducts } from './products';

const problems = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, problemSchema]));
const assetsSchema = z.array(assetSchema);

const fileTypeSchema = z.object({
  file_type: z.string(),
  label: z.string(),
  assetable_type: z.enum(assetableTypes),
  assetable_type_is_ours: z.boolean(),
  document_type: z.enum(['file', 'image']),
  thumbifiable: z.boolean(),
  purpose: z.string(),
  single_file: z.boolean(),
  accepts: z.array(z.string()),
  max_bytes: z.number().int(),
  private_by_default: z.boolean(),
  crop_aspect: z.object({ ratio: z.number().nullable(), round: z.boolean() }).nullable(),
});

/** The entity if the caller may see it (else 404), and the assets of it they may see. */
export async function visibleEntity(
  ctx: PlatformContext,
  request: FastifyRequest,
  type: AssetableType,
  id: number,
) {
  const entity = await findEntity(ctx, type, id);
  const access = entity ? entityAccess(request.caller, entity) : 'none';
  if (!entity || access === 'none') throw notFound(`No ${type} ${id}.`);
  const assets = (await entityAssetRows(ctx, type, id))
    .filter(({ row }) => canSeeAsset(request.caller, access, row))
    .map(({ row, thumbnailId }) => toApiAsset(row, thumbnailId));
  return { entity, access, assets };
}

const linksOf = (type: AssetableType, id: number) => ({ assets: `${entityPath(type, id)}/assets` });
const baseEntitySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  links: z.object({ assets: z.string() }),
});

/** What each entity read answers beside its assets: the product's relations, the review state. */
const entitySchemas: Record<AssetableType, z.ZodType> = {
  User: baseEntitySchema,
  Product: productSchema,
  Investment: productPartSchema,
  TeamMember: productPartSchema,
  Accreditation: accreditationSchema,
  IndicationOfInterest: baseEntitySchema,
};

async function entityBody(ctx: PlatformContext, request: FastifyRequest, entity: Entity) {
  const base = { id: entity.id, name: entity.name, links: linksOf(entity.type, entity.id) };
  switch (entity.type) {
    case 'Accreditation':
      return accreditationView(ctx.db, entity.id);
    case 'Product': {
      const { investments, teamMembers } = await productParts(ctx.db, entity.id);
      const readable = investments.filter(
        (i) => entityAccess(request.caller, { type: 'Investment', ownerId: i.owner_id }) !== 'none',
      );
      return {
        ...base,
        investments: readable.map(({ id, name }) => ({ id, name })),
        // Owned through the product, so readable by whoever reads it.
        team_members: teamMembers,
      };
    }
    case 'Investment':
      return { ...base, product: await productOf(ctx.db, 'investments', entity.id) };
    case 'TeamMember':
      return { ...base, product: await productOf(ctx.db, 'team_members', entity.id) };
    default:
      return base;
  }
}

/**
 * Entity resources with their assets sideloaded and linked (decisions.md), the catalog, and the
 * products any signed-in user may browse.
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
            200: z.object({ [singular]: entitySchemas[type], assets: assetsSchema }),
            ...problems(401, 404),
          },
        },
      },
      async (request) => {
        const { entity, assets } = await visibleEntity(ctx, request, type, request.params.id);
        return { [singular]: await entityBody(ctx, request, entity), assets };
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
          200: z.object({ file_types: z.array(fileTypeSchema) }),
          ...problems(401),
        },
      },
    },
    async () => ({
      file_types: fileTypes.map((t) => ({
        file_type: t.fileType,
        label: t.label,
        assetable_type: t.assetableType,
        assetable_type_is_ours: t.assetableTypeIsOurs,
        document_type: t.documentType,
        thumbifiable: t.thumbifiable,
        purpose: t.purpose,
        single_file: t.singleFile,
        accepts: [...t.accepts],
        max_bytes: t.maxBytes,
        private_by_default: t.privateByDefault,
        crop_aspect: t.cropAspect ?? null,
      })),
    }),
  );

  route.get(
    '/v2/core/products',
    {
      schema: {
        summary: 'The products the caller may read, newest first (offering material: every signed-in user)',
        tags: ['entities'],
        security: [{ bearer: [] }],
        querystring: z.object(pageQuery),
        response: { 200: productListSchema, ...problems(401, 422) },
      },
    },
    async (request) => {
      const { cursor, limit } = request.query;
      const before = decodeCursor(cursor, productList, 1)?.[0];
      const page = await readableProducts(ctx.db, request.caller, { before, limit });
      return { products: page.items, next_cursor: page.nextCursor };
    },
  );
}
