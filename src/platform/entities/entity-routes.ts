import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accreditationSchema } from '../../shared/api/accreditations';
import { assetListPath, entityPaths } from '../../shared/api/entities';
import { assetPageSchema, nextAssetsLinkSchema } from '../../shared/api/entity-assets';
import { assetableTypes, type AssetableType } from '../../shared/api/me';
import { assetPageSizes } from '../../shared/api/paging';
import { productListSchema, productPartSchema, productSchema } from '../../shared/api/products';
import type { assetSchema } from '../../shared/assets/asset';
import { fileTypeNames, fileTypes } from '../../shared/assets/file-types';
import { idParams, problems, type ZodRoutes } from '../http/route-schemas';
import type { EntitiesContext } from './entities-context';
import { productOf, productParts } from '../db/repositories/entities';
import { notFound } from '../http/errors';
import { decodeCursor, type Page, pageQuery, pageQueryOf } from '../http/paging';
import { accreditationView } from './accreditations';
import type { Caller } from '../access/caller';
import { type Entity, type EntityAccess, entityAccess, findEntity } from '../access/entity-access';
import { productList, readableProducts } from './products';

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

/** The entity if the caller may see it (else 404), and what they may do with its assets. */
export async function visibleEntity(
  ctx: EntitiesContext,
  request: FastifyRequest,
  type: AssetableType,
  id: number,
) {
  const entity = await findEntity(ctx.db, type, id);
  const access = entity ? entityAccess(request.caller, entity) : 'none';
  if (!entity || access === 'none') throw notFound(`No ${type} ${id}.`);
  return { entity, access };
}

/**
 * One page of the assets of an entity the caller may read (the assets module's
 * `visibleAssetPage`, given by the composition root): the entities know the answer's shape from the
 * contract, not the module that reads it, so no feature folder imports another.
 */
export type AssetPageReader = (
  caller: Caller,
  visible: { entity: Entity; access: EntityAccess },
  page: { cursor?: string; limit: number; fileType?: string },
) => Promise<Page<z.input<typeof assetSchema>>>;

/** What the entity and review routes are given. */
export interface EntityRouteOptions {
  ctx: EntitiesContext;
  assetPage: AssetPageReader;
}

const linksOf = (type: AssetableType, id: number) => ({ assets: assetListPath({ type, id }) });
const baseEntitySchema = z.object({
  id: z.number().int(),
  name: z.string(),
  links: z.object({ assets: z.string() }),
});

type EntitySchema = z.ZodObject<{ links: z.ZodObject<{ assets: z.ZodString }> }>;

/** What each entity read answers beside its assets: the product's relations, the review state. */
const entitySchemas: Record<AssetableType, EntitySchema> = {
  User: baseEntitySchema,
  Product: productSchema,
  Investment: productPartSchema,
  TeamMember: productPartSchema,
  Accreditation: accreditationSchema,
  IndicationOfInterest: baseEntitySchema,
};

/** An entity as its own read answers it: its links also lead to the page after the sideloaded one. */
const withNextAssets = (schema: EntitySchema) =>
  schema.extend({ links: schema.shape.links.extend({ next_assets: nextAssetsLinkSchema }) });

async function entityBody(ctx: EntitiesContext, request: FastifyRequest, entity: Entity) {
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
export async function entityRoutes(app: FastifyInstance, { ctx, assetPage }: EntityRouteOptions) {
  const route = app.withTypeProvider<ZodTypeProvider>();
  for (const type of assetableTypes) registerEntity(route, { ctx, assetPage }, type);
  registerFileTypes(route);
  registerProducts(route, ctx);
}

/** A kind of entity: one of them with its first assets, and its assets a page at a time. */
function registerEntity(route: ZodRoutes, { ctx, assetPage }: EntityRouteOptions, type: AssetableType) {
  const { plural, singular } = entityPaths[type];
  route.get(
    `/v2/core/${plural}/:id`,
    {
      schema: {
        summary: `Get a ${type} with the first page of its assets`,
        tags: ['entities'],
        security: [{ bearer: [] }],
        params: idParams,
        response: {
          // Typed loosely: a computed key would otherwise claim `assets` and `next_cursor` too.
          200: assetPageSchema.extend({ [singular]: withNextAssets(entitySchemas[type]) as z.ZodType }),
          ...problems(401, 404),
        },
      },
    },
    async (request) => {
      const visible = await visibleEntity(ctx, request, type, request.params.id);
      const [body, page] = await Promise.all([
        entityBody(ctx, request, visible.entity),
        assetPage(request.caller, visible, { limit: assetPageSizes.default }),
      ]);
      const next = page.nextCursor && `${body.links.assets}?cursor=${page.nextCursor}`;
      return {
        [singular]: { ...body, links: { ...body.links, ...(next ? { next_assets: next } : {}) } },
        assets: page.items,
        next_cursor: page.nextCursor,
      };
    },
  );
  route.get(
    `/v2/core/${plural}/:id/assets`,
    {
      schema: {
        summary: `The assets of a ${type}, newest first, a page at a time`,
        tags: ['entities'],
        security: [{ bearer: [] }],
        params: idParams,
        querystring: z.object({
          ...pageQueryOf(assetPageSizes),
          file_type: z
            .enum(fileTypeNames)
            .optional()
            .describe(
              'Only assets of this file type (limit=1: the newest, the one a single-file slot uses).',
            ),
        }),
        response: { 200: assetPageSchema, ...problems(401, 404, 422) },
      },
    },
    async (request) => {
      const { cursor, limit, file_type: fileType } = request.query;
      const visible = await visibleEntity(ctx, request, type, request.params.id);
      const page = await assetPage(request.caller, visible, { cursor, limit, fileType });
      return { assets: page.items, next_cursor: page.nextCursor };
    },
  );
}

function registerFileTypes(route: ZodRoutes) {
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
}

function registerProducts(route: ZodRoutes, ctx: EntitiesContext) {
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
