import type { IncomingMessage, ServerResponse } from 'node:http';
import { EVENTS, type Upload } from '@tus/utils';
import { Server } from '@tus/server';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { problems } from '../http/route-schemas';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { resumableUploadsPath, tusVersion } from '../../shared/api/resumable-uploads';
import { maxBytesFor } from '../../shared/assets/file-types';
import type { PlatformContext } from '../context';
import { assetById } from '../db/repositories/assets';
import {
  claimResumableUploadAsset,
  deleteResumableUpload,
  insertResumableUpload,
  resumableUploadById,
} from '../db/repositories/resumable-uploads';
import type { ResumableUploadRow } from '../db/schema';
import { ApiError, notFound, problemOf } from '../http/errors';
import { parseCreateFields } from '../assets/asset-input';
import { toApiAsset } from '../assets/asset-records';
import { checkContent, commitAsset, insufficientStorage, writableEntity } from '../assets/create-asset';
import { createUploadGuard } from '../assets/upload-guard';
import { isDiskFull, type StagedBlob } from '../storage/blob-store';
import { checkUploadMetadata, type CheckedMetadata } from './upload-metadata';
import { createResumableStore } from './resumable-store';
import { sweepResumableUploadsPeriodically } from './resumable-sweep';

/** What the Fastify side knows of a request that tus handles: the caller, and the checked metadata. */
interface Handed {
  request: FastifyRequest;
  metadata?: CheckedMetadata;
  /** tus is answering this request with one of its refusals, as problem+json (tusProblem). */
  problem?: boolean;
}

/** tus hands its hooks srvx's request; the Node request under it is where ours is found. */
const nodeRequestOf = (req: unknown) =>
  (req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;

const json = (status: number, body: unknown, contentType = 'application/json') => ({
  status_code: status,
  headers: { 'Content-Type': contentType, 'Cache-Control': 'no-store' },
  body: JSON.stringify(body),
});
const problem = (error: ApiError) =>
  json(
    error.status,
    problemOf({ status: error.status, code: error.code, detail: error.message, errors: error.errors }),
    'application/problem+json',
  );

/**
 * @tus/server's own refusals (a wrong offset, a size passed, a lock held, a missing header) in the
 * API's problem+json, as every other error of ours: the same `code`, `detail` and `status`, whether
 * our checks or the library's said no. Its words become the detail.
 */
const tusCodes: Record<number, string> = {
  400: 'malformed_request',
  403: 'malformed_request',
  404: 'not_found',
  409: 'offset_mismatch',
  410: 'upload_expired',
  412: 'unsupported_tus_version',
  413: 'payload_too_large',
  423: 'upload_locked',
  460: 'checksum_mismatch',
};
function tusProblem(error: { status_code: number; body: string }) {
  const status = error.status_code;
  const code = tusCodes[status] ?? (status >= 500 ? 'internal_error' : 'malformed_request');
  const detail =
    status >= 500
      ? 'Something went wrong on our side.'
      : status === 423
        ? 'This upload is being written by another request; ask HEAD for its offset and continue in a moment.'
        : error.body.trim();
  return { status_code: status, body: JSON.stringify(problemOf({ status, code, detail })) };
}

/** A `writeHead` argument with its content type made problem+json (headers as srvx passes them). */
function asProblemJson(arg: unknown): unknown {
  if (!Array.isArray(arg)) return arg;
  const isType = (name: unknown) => String(name).toLowerCase() === 'content-type';
  if (arg.every((entry) => Array.isArray(entry)))
    return [
      ...(arg as unknown[][]).filter(([name]) => !isType(name)),
      ['content-type', 'application/problem+json'],
    ];
  const flat: unknown[] = [];
  for (let i = 0; i < arg.length; i += 2) if (!isType(arg[i])) flat.push(arg[i], arg[i + 1]);
  return [...flat, 'content-type', 'application/problem+json'];
}

/**
 * tus 1.0 at `/v2/core/uploads` (src/shared/api/resumable-uploads.ts), on @tus/server. Fastify
 * authenticates, rate-limits and checks first (as for the rest of the API); @tus/server then owns
 * the request and the answer. What is ours:
 * - creation: the metadata is checked as POST /v2/core/assets checks its form, before any byte, and
 *   the upload's row names its owner (another user's upload is 404, as an asset they may not see);
 * - the finish: the asset is made as POST makes it, once per upload (idempotent by the upload id),
 *   and the final PATCH answers 200 `{"asset": …}`; later HEAD, PATCH and GET answer from the row;
 * - the expiry sweep of bytes and rows.
 */
export async function resumableUploadRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const store = createResumableStore(ctx.config);
  const handed = new WeakMap<IncomingMessage, Handed>();
  const guard = createUploadGuard(ctx.config.uploads, ctx.uploadSlots, 1024 * 1024);
  const anyOrigin = ctx.config.webOrigins.includes('*');

  const tus = new Server({
    path: resumableUploadsPath,
    datastore: store,
    locker: ctx.uploadLocker,
    maxSize: ctx.config.maxUploadBytes,
    // `/v2/core/uploads/<id>`: right behind the proxy and nginx alike, with nothing to rewrite.
    relativeLocation: true,
    allowedOrigins: (origin) => anyOrigin || ctx.config.webOrigins.includes(origin),
    allowedHeaders: ['Authorization', 'X-Request-Id'],
    exposedHeaders: ['Retry-After', 'X-Request-Id'],
    onUploadCreate: async (req, upload) => {
      const { request, metadata } = handedOf(req);
      if (!metadata) throw new Error('an upload created without its checked metadata');
      const now = ctx.clock();
      await insertResumableUpload(ctx.db, {
        id: upload.id,
        user_id: request.caller.userId,
        size: metadata.size,
        fields: JSON.stringify({ ...metadata.fields, file_name: metadata.fileName }),
        created_at: now,
        expires_at: now + ctx.config.resumableUploadExpiryMs,
        asset_id: null,
      });
      return {};
    },
    // tus answers its own errors; those that are no protocol answer (a store or lock failing) are
    // logged as ours are.
    onResponseError: (req, error) => {
      const known = 'status_code' in error ? error : undefined;
      if (!known || known.status_code >= 500)
        handedOrNot(req)?.request.log.error({ err: error }, 'resumable upload request failed');
      const found = handedOrNot(req);
      if (found) found.problem = true;
      return tusProblem(known ?? { status_code: 500, body: '' });
    },
    onUploadFinish: async (req, upload) => {
      const { request } = handedOf(req);
      try {
        return await finish(request, upload);
      } catch (error) {
        if (isDiskFull(error)) return problem(await insufficientStorage(ctx, request));
        if (error instanceof ApiError) return problem(error);
        request.log.error({ err: error }, 'a resumable upload could not be made into an asset');
        return problem(new ApiError(500, 'internal_error', 'Something went wrong on our side.'));
      }
    },
  });
  tus.on(EVENTS.POST_TERMINATE, (_req: unknown, _res: unknown, id: string) => {
    deleteResumableUpload(ctx.db, id).catch(() => {});
  });

  function handedOrNot(req: unknown): Handed | undefined {
    const raw = nodeRequestOf(req);
    return raw && handed.get(raw);
  }

  function handedOf(req: unknown): Handed {
    const raw = nodeRequestOf(req);
    const found = raw && handed.get(raw);
    if (!found) throw new Error('a tus request that Fastify did not hand over');
    return found;
  }

  /**
   * The last byte is in: the asset, made as POST makes it from the bytes the store holds, or the
   * asset a finish before made. A refused file (415, a bad crop) ends the upload: nothing is kept.
   */
  async function finish(request: FastifyRequest, upload: Upload) {
    const row = await resumableUploadById(ctx.db, upload.id);
    if (!row) throw notFound('No such upload.');
    if (row.asset_id !== null) return json(200, await assetAnswer(row));
    const { file_name: fileName, ...fields } = JSON.parse(row.fields) as Record<string, string>;
    const input = parseCreateFields(fields);
    let staged: StagedBlob | undefined;
    let kept = false;
    try {
      const entity = await writableEntity(ctx, request, input);
      staged = await ctx.blobs.stage(await store.read(upload.id), {
        maxBytes: maxBytesFor(input.fileType, ctx.config.maxUploadBytes),
      });
      const checked = await checkContent(ctx, staged, input, fileName);
      const created = await commitAsset(
        ctx,
        request,
        { input, entity, staged, ...checked },
        async (trx, _r, asset) => {
          if (!(await claimResumableUploadAsset(trx, upload.id, asset.id)))
            throw new ApiError(409, 'upload_finished', 'This upload was made into an asset already.');
        },
      );
      kept = true;
      return {
        ...json(200, created.response.body),
        headers: { ...json(200, null).headers, ...(created.etag ? { ETag: created.etag } : {}) },
      };
    } catch (error) {
      // A file the slot refuses (415, 413, a bad crop: 422) ends the upload, bytes and row.
      if (error instanceof ApiError && error.status !== 409) {
        await store.remove(upload.id).catch(() => {});
        await deleteResumableUpload(ctx.db, upload.id);
      }
      throw error;
    } finally {
      await staged?.discard();
      // The asset has its own copy now; the upload's row remains, to answer its asset until it expires.
      if (kept) await store.remove(upload.id).catch(() => {});
    }
  }

  async function assetAnswer(row: ResumableUploadRow) {
    const asset = row.asset_id === null ? undefined : await assetById(ctx.db, row.asset_id);
    if (!asset) throw notFound('The asset this upload made is gone.');
    return { asset: toApiAsset(asset, asset.thumbnail_id ?? null) };
  }

  /** The upload of `:id`, the caller's (else 404, as if it did not exist). */
  async function ownUpload(request: FastifyRequest) {
    const id = (request.params as { id: string }).id;
    const row = /^[0-9a-f]{32}$/.test(id) ? await resumableUploadById(ctx.db, id) : undefined;
    if (!row || row.user_id !== request.caller.userId) throw notFound('No such upload.');
    if (row.asset_id === null && row.expires_at <= ctx.clock())
      throw new ApiError(410, 'upload_expired', 'This upload was not finished in time and is gone.');
    return row;
  }

  /** Hands the request to tus with the headers Fastify's hooks set (request id, CORS, …). */
  async function handToTus(request: FastifyRequest, reply: FastifyReply, metadata?: CheckedMetadata) {
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value);
    const handedOver: Handed = { request, metadata };
    handed.set(request.raw, handedOver);
    // tus writes its refusals with a text/plain type of its own; ours are problem+json (tusProblem).
    const writeHead = reply.raw.writeHead.bind(reply.raw) as (...args: unknown[]) => ServerResponse;
    reply.raw.writeHead = ((...args: unknown[]) =>
      writeHead(...(handedOver.problem ? args.map(asProblemJson) : args))) as typeof reply.raw.writeHead;
    reply.hijack();
    // Too slow an upload (H8): its connection goes; what arrived is kept, and the client resumes.
    guard.signalOf(request).addEventListener('abort', () => request.raw.destroy(), { once: true });
    await tus.handle(request.raw, reply.raw);
  }

  // tus bodies are streamed by the store: Fastify must leave them alone.
  app.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));

  const admitUpload = async (request: FastifyRequest, reply: FastifyReply) => guard.admit(request, reply);
  const hidden = { schema: { hide: true } };
  // The OpenAPI document describes the tus requests (api.md); @tus/server answers them.
  const tusDoc = (summary: string, description: string, statuses: number[], extra = {}) => ({
    schema: {
      summary,
      description,
      tags: ['uploads'],
      ...extra,
      response: problems(...statuses),
    },
  });
  const idParam = z.object({ id: z.string() });

  // Discovery: no token needed (bearer.ts lets OPTIONS through); CORS preflights are answered here too.
  app.options(
    resumableUploadsPath,
    tusDoc(
      'tus discovery (resumable uploads)',
      'No token. Answers 204 with `Tus-Resumable: 1.0.0`, `Tus-Version`, `Tus-Extension` (creation, creation-with-upload, termination, expiration) and `Tus-Max-Size`; also the CORS preflight of tus requests.',
      [],
    ),
    (request, reply) => handToTus(request, reply),
  );
  app.options(`${resumableUploadsPath}/:id`, hidden, (request, reply) => handToTus(request, reply));

  const creationDoc = tusDoc(
    'Create a resumable upload (tus creation, creation-with-upload)',
    '`Upload-Length` and `Upload-Metadata` (base64 values: `file_type`, `assetable_type`, `assetable_id`, `name` or `filename`, `meta` as JSON, `private`, `content_type`), checked as `POST /v2/core/assets` checks its form, before any byte. 201 with a relative `Location` and `Upload-Expires`; with `Content-Type: application/offset+octet-stream` the body carries the first bytes.',
    [401, 403, 404, 413, 415, 422, 429],
    { security: [{ bearer: [] }] },
  );
  app.post(resumableUploadsPath, { ...creationDoc, onRequest: admitUpload }, async (request, reply) => {
    const metadata = checkUploadMetadata(request.headers, ctx.config.maxUploadBytes);
    await writableEntity(ctx, request, metadata.input);
    await handToTus(request, reply, metadata);
  });

  app.route({
    method: ['HEAD', 'PATCH', 'DELETE'],
    url: `${resumableUploadsPath}/:id`,
    ...tusDoc(
      'Continue, inspect or give up a resumable upload (tus HEAD, PATCH, DELETE)',
      '`HEAD`: `Upload-Offset` and `Upload-Length`. `PATCH` (`Content-Type: application/offset+octet-stream`, `Upload-Offset`): the bytes from there; 409 at another offset, 413 past `Upload-Length`, 423 while another request writes it. The `PATCH` with the last byte makes the asset as `POST /v2/core/assets` does and answers 200 `{"asset": …}` (415 and nothing kept when the bytes are of a type the slot does not take). `DELETE`: 204, the bytes go. Another user\'s upload is 404; an expired one 410.',
      [401, 404, 409, 410, 413, 415, 422, 423],
      { security: [{ bearer: [] }], params: idParam },
    ),
    onRequest: (request, reply, done) => {
      if (request.method !== 'PATCH') return done();
      guard.admit(request, reply).then(() => done(), done);
    },
    handler: async (request, reply) => {
      const row = await ownUpload(request);
      if (row.asset_id === null) return handToTus(request, reply);
      // Made into an asset already: its bytes are the asset's now, and the row answers.
      reply.header('tus-resumable', tusVersion).header('cache-control', 'no-store');
      if (request.method === 'HEAD')
        return reply
          .header('upload-offset', String(row.size))
          .header('upload-length', String(row.size))
          .code(200)
          .send();
      if (request.method === 'DELETE') {
        await deleteResumableUpload(ctx.db, row.id);
        return reply.code(204).send();
      }
      // A repeated final PATCH (its answer was lost): the same asset again.
      if (request.headers['upload-offset'] !== String(row.size))
        throw new ApiError(409, 'offset_mismatch', `This upload is complete at ${row.size} bytes.`);
      request.raw.resume();
      return reply
        .header('upload-offset', String(row.size))
        .code(200)
        .send(await assetAnswer(row));
    },
  });

  const getDoc = {
    schema: {
      summary: 'The asset a resumable upload made',
      description:
        'For a client whose final `PATCH` answer was lost: `{"asset": …}` once the last byte is in; 409 `upload_incomplete` before.',
      tags: ['uploads'],
      security: [{ bearer: [] }],
      params: idParam,
      response: {
        200: assetEnvelopeSchema,
        ...problems(401, 404, 409, 410),
      },
    },
  };
  app.get(`${resumableUploadsPath}/:id`, { ...getDoc, exposeHeadRoute: false }, async (request) => {
    const row = await ownUpload(request);
    if (row.asset_id === null)
      throw new ApiError(
        409,
        'upload_incomplete',
        'This upload is still missing bytes; send them with PATCH.',
      );
    return assetAnswer(row);
  });

  let stopSweeps = async () => {};
  app.addHook('onReady', async () => {
    stopSweeps = sweepResumableUploadsPeriodically(ctx, store, app.log);
  });
  app.addHook('onClose', async () => stopSweeps());
}
