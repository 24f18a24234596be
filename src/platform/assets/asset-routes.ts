import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { idParams, problems, readByHandler, type ZodRoutes } from '../http/route-schemas';
import type { AssetsContext } from './assets-context';
import { assetWithOwnerById, thumbnailIdOf } from '../db/repositories/assets';
import { ApiError, forbidden, notFound } from '../http/errors';
import { checkIfMatch, preconditionFailed } from '../http/preconditions';
import { canSeeAsset, entityAccess } from '../access/entity-access';
import { checkNotRetained } from '../evidence/retained-files';
import { checkCrop, parseUpdateBody } from './asset-input';
import { type ApiAsset, deleteAssetRows, etagOf, toApiAsset, updateAssetRow } from './asset-records';
import { createAsset } from './create-asset';
import { createUploadGuard } from './upload-guard';
import { signDownloadUrl, urlState } from './download-urls';
import { renditionFor, renditionQuery } from '../media/rendition-request';
import { maxJsonFileBytes } from './upload-body';
import { serverBuilt } from '../plugins/response-serializer';

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
      .describe(
        'JSON object; in multipart a JSON string, or bracketed fields (meta[crop][x]=10). meta.crop = {x, y, width, height}.',
      ),
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
export async function visibleAsset(ctx: AssetsContext, request: FastifyRequest, id: number) {
  const row = await assetWithOwnerById(ctx.db, id);
  const access =
    row && row.owner_id !== null
      ? entityAccess(request.caller, { type: row.assetable_type, ownerId: row.owner_id })
      : 'none';
  if (!row || !canSeeAsset(request.caller, access, row)) throw notFound(`No asset ${id}.`);
  return { row, access };
}

/**
 * A thumbnail whose PNG is still being made (after its parent's upload was answered) has no file to
 * give yet: 409 with the seconds to wait. 409 rather than 404 (it exists, and will have a file) or
 * 503 (nothing is wrong with the platform); the web app asks again after `Retry-After`.
 */
export function thumbnailPending(ctx: AssetsContext, row: { id: number }) {
  const seconds = ctx.thumbnails.retryAfterSeconds(row.id);
  return new ApiError(
    409,
    'thumbnail_pending',
    `This thumbnail is still being made; ask again in ${seconds} second${seconds === 1 ? '' : 's'}.`,
    undefined,
    { 'retry-after': String(seconds) },
  );
}

/**
 * POST /v2/core/assets, apart from the other asset routes: composition/app.ts registers it in the one scope
 * that parses multipart bodies (@fastify/multipart hooks into every request of its scope).
 */
export async function assetUploadRoutes(app: FastifyInstance, { ctx }: { ctx: AssetsContext }) {
  const route = app.withTypeProvider<ZodTypeProvider>();
  // A refused upload's body is read and thrown away up to the largest form an upload can be (the
  // file and 1 MB of fields, as nginx's client_max_body_size), so that its client reads the 429.
  const guard = createUploadGuard(
    ctx.config.uploads,
    ctx.uploadSlots,
    ctx.config.maxUploadBytes + 1024 * 1024,
  );

  route.post(
    '/v2/core/assets',
    {
      // JSON bodies carry the file in base64: 4/3 of the 10 MB limit plus the other fields.
      bodyLimit: Math.ceil((maxJsonFileBytes * 4) / 3) + 64 * 1024,
      ...readByHandler(
        {
          summary: 'Create an Asset (upload a file)',
          tags: ['assets'],
          security: [{ bearer: [] }],
          headers: z.object({ 'idempotency-key': z.string().optional() }).passthrough(),
          consumes: ['multipart/form-data', 'application/json'],
          body: createBodyDoc,
          response: {
            201: assetEnvelopeSchema,
            ...problems(400, 401, 403, 404, 408, 409, 413, 415, 422, 429, 507),
          },
        },
        'the body is a stream (multipart) or carries the file as a data URL; createAsset reads it as it arrives and names the field at fault.',
      ),
      // After authentication (the app's own onRequest hook runs first): the per-user cap and the
      // minimum rate (H8).
      onRequest: async (request, reply) => guard.admit(request, reply),
      preParsing: async (request, _reply, payload) => guard.abortableBody(request, payload),
    },
    async (request, reply) => {
      const { response, etag } = await createAsset(ctx, request, guard.signalOf(request));
      // A replayed answer comes from the idempotency store as it was first sent.
      const body = response.body as { asset: ApiAsset };
      if (etag) reply.header('etag', etag);
      return reply.code(201).header('location', `/v2/core/assets/${body.asset.id}`).send(body);
    },
  );
}

/** An asset's own routes: read, update, delete and its download URL. */
export async function assetRoutes(app: FastifyInstance, { ctx }: { ctx: AssetsContext }) {
  const route = app.withTypeProvider<ZodTypeProvider>();
  registerRead(route, ctx);
  registerUpdate(route, ctx);
  registerDelete(route, ctx);
  registerDownloadUrl(route, ctx);
}

function registerRead(route: ZodRoutes, ctx: AssetsContext) {
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
}

function registerUpdate(route: ZodRoutes, ctx: AssetsContext) {
  route.put(
    '/v2/core/assets/:id',
    {
      ...readByHandler(
        {
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
        'the body, by parseUpdateBody, whose messages name each field at fault in words an uploader can act on.',
        ['params', 'headers', 'querystring'],
      ),
    },
    async (request, reply) => {
      const { row, access } = await visibleAsset(ctx, request, request.params.id);
      if (access !== 'write') throw forbidden('Only the owner may change this file.');
      // A thumbnail follows its parent (privacy, lifetime; decisions.md): changed through it only.
      if (row.thumbnail_of !== null)
        throw forbidden(`This is the thumbnail of asset ${row.thumbnail_of}: change that asset instead.`);
      checkIfMatch(
        request.headers['if-match'],
        etagOf(row),
        'The file changed since you read it; reload and try again.',
      );
      const changes = parseUpdateBody(request.body);
      if (changes.meta)
        checkCrop(changes.meta, row.width && row.height ? { width: row.width, height: row.height } : null);
      const updated = await updateAssetRow(ctx, row, changes, request.caller.userId);
      if (!updated) throw preconditionFailed('The file changed while you were saving; reload and try again.');
      // Renditions of the old crop are never sent (the crop is part of their key); this frees the disk.
      if (changes.meta !== undefined) await ctx.renditions.cropChanged(updated);
      reply.header('etag', etagOf(updated));
      return { asset: toApiAsset(updated, await thumbnailIdOf(ctx.db, updated.id)) };
    },
  );
}

function registerDelete(route: ZodRoutes, ctx: AssetsContext) {
  route.delete(
    '/v2/core/assets/:id',
    {
      schema: {
        summary: 'Delete an Asset (its bytes, its thumbnail and every download URL issued for it)',
        description:
          'A file an accreditation decision was made on is kept as its evidence: 409 `retained`, for everyone.',
        tags: ['assets'],
        security: [{ bearer: [] }],
        params: idParams,
        headers: z.object({ 'if-match': z.string().optional() }).passthrough(),
        response: { 204: z.undefined(), ...problems(401, 403, 404, 409, 412) },
      },
    },
    async (request, reply) => {
      const { row, access } = await visibleAsset(ctx, request, request.params.id);
      // Before the owner check: admins, who may read it, learn why it stays too.
      await checkNotRetained(ctx.db, row.id);
      if (access !== 'write') throw forbidden('Only the owner may delete this file.');
      if (row.thumbnail_of !== null)
        throw forbidden(`This is the thumbnail of asset ${row.thumbnail_of}: delete that asset instead.`);
      const ifMatch = request.headers['if-match'];
      checkIfMatch(ifMatch, etagOf(row), 'The file changed since you read it; reload it before deleting.');
      // With If-Match, the delete is a compare-and-set on the version just checked.
      const removed = await deleteAssetRows(
        ctx,
        row,
        request.caller.userId,
        ifMatch === undefined ? undefined : row.version,
      );
      if (!removed) {
        // Deleted or changed by another request meanwhile (RFC 9110: If-Match fails on a gone resource).
        if (ifMatch === undefined) throw notFound(`No asset ${row.id}.`);
        throw preconditionFailed('The file changed while you were deleting it; reload it first.');
      }
      // Rows first, bytes after: a crash in between leaves only unreferenced files, swept at start.
      // The asset is gone once its rows are: a store that fails now leaves its files to the sweep.
      for (const key of removed) {
        try {
          await ctx.blobs.delete(key);
          await ctx.renditions.forget(key);
        } catch (error) {
          request.log.warn(`asset deleted; its file is left for the sweep: ${String(error)}`);
        }
      }
      return reply.code(204).send();
    },
  );
}

function registerDownloadUrl(route: ZodRoutes, ctx: AssetsContext) {
  route.get(
    '/v2/core/assets/:id/download_url',
    {
      schema: {
        summary: 'Get a signed, time-limited download URL',
        description:
          'A thumbnail still being made (`pending: true`) answers 409 `thumbnail_pending` with Retry-After.',
        tags: ['assets'],
        security: [{ bearer: [] }],
        params: idParams,
        querystring: renditionQuery,
        response: { 200: downloadUrlResponse, ...problems(401, 404, 409, 422) },
      },
    },
    async (request) => {
      const { row } = await visibleAsset(ctx, request, request.params.id);
      if (row.pending === 1) throw thumbnailPending(ctx, row);
      const rendition = renditionFor(row, request.query);
      // Rendered now rather than at delivery, so that a damaged or oversized image is a problem
      // answer to the API client instead of a broken <img>; delivery then streams a cached file.
      if (rendition) await ctx.renditions.ensure(row, rendition);
      const expires = Math.floor(ctx.clock() / 1000) + ctx.config.downloadUrlTtl;
      const url = signDownloadUrl(
        ctx.config.publicUrl,
        ctx.signingKey,
        {
          assetId: row.id,
          variant: request.query.variant,
          width: rendition?.width ?? null,
          expires,
          ...(request.query.disposition && { disposition: request.query.disposition }),
        },
        urlState(row, request.query.variant),
      );
      return { url };
    },
  );
}
