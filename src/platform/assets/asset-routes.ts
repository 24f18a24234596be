import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { problemSchema } from '../../shared/api/problem';
import type { PlatformContext } from '../context';
import { ApiError, forbidden, notFound } from '../errors';
import { canSeeAsset, entityAccess } from '../entities/entities';
import { checkCrop, parseUpdateBody } from './asset-input';
import { type ApiAsset, etagOf, findAssetWithOwner, thumbnailIdOf, toApiAsset } from './asset-records';
import { createAsset } from './create-asset';
import { signDownloadUrl } from './download-urls';
import { renditionFor, renditionQuery } from '../media/rendition-request';
import { maxJsonFileBytes } from './upload-body';
import { serverBuilt } from '../plugins/response-serializer';

export const idParams = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });

const problems = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, problemSchema]));
const downloadUrlResponse = serverBuilt(z.object({ url: z.url() }));

const createBodyDoc = z
  .object({
    file: z
      .string()
      .describe('The file: a multipart file part, or in JSON a base64 data: URL (up to 10 MB).'),
    file_type: z.string().describe('A file type of GET /v2/core/file_types that belongs to assetable_type.'),
    assetable_type: z.string(),
    assetable_id: z.number().int(),
    name: z.string().optional().describe("Defaults to the uploaded file's base name."),
    meta: z
      .record(z.string(), z.unknown())
      .optional()
      .describe('JSON object (a JSON string in multipart); meta.crop = {x, y, width, height}.'),
    private: z
      .boolean()
      .optional()
      .describe("Defaults to the file type's default (identity and accreditation documents are private)."),
  })
  .describe('multipart/form-data with flat or asset[...] field names, or JSON (flat or under "asset").');

/**
 * Loads an asset the caller may see, with its thumbnail's id and its entity's owner, in one read;
 * one they may not see is "not found" so its existence does not leak.
 */
export async function visibleAsset(ctx: PlatformContext, request: FastifyRequest, id: number) {
  const row = await findAssetWithOwner(ctx, id);
  const access =
    row && row.owner_id !== null
      ? entityAccess(request.caller, { type: row.assetable_type, ownerId: row.owner_id })
      : 'none';
  if (!row || !canSeeAsset(request.caller, access, row)) throw notFound(`No asset ${id}.`);
  return { row, access };
}

/**
 * POST /v2/core/assets, apart from the other asset routes: app.ts registers it in the one scope
 * that parses multipart bodies (@fastify/multipart hooks into every request of its scope).
 */
export async function assetUploadRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const route = app.withTypeProvider<ZodTypeProvider>();

  route.post(
    '/v2/core/assets',
    {
      // JSON bodies carry the file in base64: 4/3 of the 10 MB limit plus the other fields.
      bodyLimit: Math.ceil((maxJsonFileBytes * 4) / 3) + 64 * 1024,
      schema: {
        summary: 'Create an Asset (upload a file)',
        tags: ['assets'],
        security: [{ bearer: [] }],
        headers: z.object({ 'idempotency-key': z.string().optional() }).passthrough(),
        body: createBodyDoc,
        response: { 201: assetEnvelopeSchema, ...problems(400, 401, 403, 404, 409, 413, 415, 422, 429) },
      },
      // The body is a stream (multipart) or a data URL: createAsset reads and checks it itself.
      validatorCompiler: () => (data) => ({ value: data }),
    },
    async (request, reply) => {
      const { response, etag } = await createAsset(ctx, request);
      // A replayed answer comes from the idempotency store as it was first sent.
      const body = response.body as { asset: ApiAsset };
      if (etag) reply.header('etag', etag);
      return reply.code(201).header('location', `/v2/core/assets/${body.asset.id}`).send(body);
    },
  );
}

export async function assetRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const route = app.withTypeProvider<ZodTypeProvider>();

  route.get(
    '/v2/core/assets/:id',
    {
      schema: {
        summary: 'Get an Asset',
        tags: ['assets'],
        security: [{ bearer: [] }],
        params: idParams,
        response: { 200: assetEnvelopeSchema, 304: z.undefined(), ...problems(401, 404) },
      },
    },
    async (request, reply) => {
      const { row } = await visibleAsset(ctx, request, request.params.id);
      const etag = etagOf(row);
      reply.header('etag', etag).header('cache-control', 'private, no-cache');
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return { asset: toApiAsset(row, row.thumbnail_id ?? null) };
    },
  );

  route.put(
    '/v2/core/assets/:id',
    {
      schema: {
        summary: 'Update an Asset (private, name, meta; a new meta replaces the old one)',
        tags: ['assets'],
        security: [{ bearer: [] }],
        params: idParams,
        headers: z.object({ 'if-match': z.string().optional() }).passthrough(),
        body: z.object({
          asset: z.object({
            private: z.boolean().optional(),
            name: z.string().optional(),
            meta: z.record(z.string(), z.unknown()).optional(),
          }),
        }),
        response: { 200: assetEnvelopeSchema, ...problems(400, 401, 403, 404, 412, 415, 422) },
      },
      validatorCompiler: () => (data) => ({ value: data }),
    },
    async (request, reply) => {
      const { row, access } = await visibleAsset(ctx, request, request.params.id);
      if (access !== 'write') throw forbidden('Only the owner may change this file.');
      // A thumbnail follows its parent (privacy, lifetime; decisions.md): changed through it only.
      if (row.thumbnail_of !== null)
        throw forbidden(`This is the thumbnail of asset ${row.thumbnail_of}: change that asset instead.`);
      const ifMatch = request.headers['if-match'];
      if (ifMatch !== undefined && ifMatch !== etagOf(row) && ifMatch !== '*') {
        throw new ApiError(
          412,
          'precondition_failed',
          'The file changed since you read it; reload and try again.',
        );
      }
      const changes = parseUpdateBody(request.body);
      if (changes.meta)
        checkCrop(changes.meta, row.width && row.height ? { width: row.width, height: row.height } : null);
      const updated = await ctx.db
        .updateTable('assets')
        .set({
          ...(changes.name !== undefined ? { name: changes.name } : {}),
          ...(changes.private !== undefined ? { private: changes.private ? 1 : 0 } : {}),
          ...(changes.meta !== undefined ? { meta: JSON.stringify(changes.meta) } : {}),
          version: row.version + 1,
          updated_at: ctx.clock(),
        })
        .where('id', '=', row.id)
        // Compare-and-set on the version: two concurrent updates with the same If-Match cannot both win.
        .where('version', '=', row.version)
        .returningAll()
        .executeTakeFirst();
      if (!updated)
        throw new ApiError(
          412,
          'precondition_failed',
          'The file changed while you were saving; reload and try again.',
        );
      // A thumbnail shares its parent's privacy (decisions.md).
      if (changes.private !== undefined) {
        await ctx.db
          .updateTable('assets')
          .set({ private: changes.private ? 1 : 0 })
          .where('thumbnail_of', '=', row.id)
          .execute();
      }
      // Renditions of the old crop are never sent (the crop is part of their key); this frees the disk.
      if (changes.meta !== undefined) await ctx.renditions.cropChanged(updated);
      reply.header('etag', etagOf(updated));
      return { asset: toApiAsset(updated, await thumbnailIdOf(ctx, updated.id)) };
    },
  );

  route.delete(
    '/v2/core/assets/:id',
    {
      schema: {
        summary: 'Delete an Asset (its bytes, its thumbnail and every download URL issued for it)',
        tags: ['assets'],
        security: [{ bearer: [] }],
        params: idParams,
        response: { 204: z.undefined(), ...problems(401, 403, 404) },
      },
    },
    async (request, reply) => {
      const { row, access } = await visibleAsset(ctx, request, request.params.id);
      if (access !== 'write') throw forbidden('Only the owner may delete this file.');
      if (row.thumbnail_of !== null)
        throw forbidden(`This is the thumbnail of asset ${row.thumbnail_of}: delete that asset instead.`);
      const removed = await ctx.db.transaction().execute(async (trx) => {
        const children = await trx
          .selectFrom('assets')
          .select('blob_key')
          .where('thumbnail_of', '=', row.id)
          .execute();
        await trx.deleteFrom('assets').where('thumbnail_of', '=', row.id).execute();
        await trx.deleteFrom('assets').where('id', '=', row.id).execute();
        return [row.blob_key, ...children.map((c) => c.blob_key)];
      });
      // Rows first, bytes after: a crash in between leaves only unreferenced files, swept at start.
      for (const key of removed) {
        await ctx.blobs.delete(key);
        await ctx.renditions.forget(key);
      }
      return reply.code(204).send();
    },
  );

  route.get(
    '/v2/core/assets/:id/download_url',
    {
      schema: {
        summary: 'Get a signed, time-limited download URL',
        tags: ['assets'],
        security: [{ bearer: [] }],
        params: idParams,
        querystring: renditionQuery,
        response: { 200: downloadUrlResponse, ...problems(401, 404, 422) },
      },
    },
    async (request) => {
      const { row } = await visibleAsset(ctx, request, request.params.id);
      const rendition = renditionFor(row, request.query);
      // Rendered now rather than at delivery, so that a damaged or oversized image is a problem
      // answer to the API client instead of a broken <img>; delivery then streams a cached file.
      if (rendition) await ctx.renditions.ensure(row, rendition);
      const expires = Math.floor(ctx.clock() / 1000) + ctx.config.downloadUrlTtl;
      const url = signDownloadUrl(
        ctx.config.publicUrl,
        ctx.signingKey,
        { assetId: row.id, variant: request.query.variant, width: rendition?.width ?? null, expires },
        row.blob_key,
      );
      return { url };
    },
  );
}
