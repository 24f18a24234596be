import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { resumableUploadsPath } from '../../../shared/api/resumable-uploads';
import type { AssetsContext } from '../assets-context';
import { resumableUploadById } from '../../db/repositories/resumable-uploads';
import { ApiError, notFound } from '../../http/errors';
import { createUploadGuard } from '../upload-guard';
import { checkCreation } from './resumable-creation';
import { answerFinishedUpload, assetOfFinishedUpload } from './resumable-finish';
import { createResumableStore } from './resumable-store';
import { sweepResumableUploadsWhileOpen } from './resumable-sweep';
import {
  continuationDoc,
  creationDoc,
  discoveryDoc,
  finishedAssetDoc,
  hiddenDoc,
} from './resumable-upload-docs';
import { TusHandOver } from './tus-hand-over';

/**
 * tus 1.0 at `/v2/core/uploads` (src/shared/api/resumable-uploads.ts), on @tus/server. Fastify
 * authenticates, rate-limits and checks first (as for the rest of the API); @tus/server then owns
 * the request and the answer (tus-hand-over.ts). What is ours:
 * - creation: the metadata is checked as POST /v2/core/assets checks its form, before any byte, and
 *   the upload's row names its owner (resumable-creation.ts);
 * - the finish: the asset is made as POST makes it, once per upload (idempotent by the upload id),
 *   and the final PATCH answers 200 `{"asset": …}`; later HEAD, PATCH and GET answer from the row
 *   (resumable-finish.ts);
 * - @tus/server's own refusals, in problem+json as every other error of ours (tus-answers.ts);
 * - the expiry sweep of bytes and rows (resumable-sweep.ts).
 */
export async function resumableUploadRoutes(app: FastifyInstance, { ctx }: { ctx: AssetsContext }) {
  const store = createResumableStore(ctx.config);
  const guard = createUploadGuard(ctx.config.uploads, ctx.uploadSlots, 1024 * 1024);
  const tus = new TusHandOver(ctx, store, guard);

  // tus bodies are streamed by the store: Fastify must leave them alone.
  app.addContentTypeParser('application/offset+octet-stream', (_request, _payload, done) => done(null));

  // Discovery: no token needed (bearer.ts lets OPTIONS through); CORS preflights are answered here too.
  app.options(resumableUploadsPath, discoveryDoc, (request, reply) => tus.hand(request, reply));
  app.options(`${resumableUploadsPath}/:id`, hiddenDoc, (request, reply) => tus.hand(request, reply));

  const admitUpload = async (request: FastifyRequest, reply: FastifyReply) => guard.admit(request, reply);
  app.post(resumableUploadsPath, { ...creationDoc, onRequest: admitUpload }, async (request, reply) => {
    await tus.hand(request, reply, await checkCreation(ctx, request));
  });

  app.route({
    method: ['HEAD', 'PATCH', 'DELETE'],
    url: `${resumableUploadsPath}/:id`,
    ...continuationDoc,
    onRequest: (request, reply, done) => {
      if (request.method !== 'PATCH') return done();
      guard.admit(request, reply).then(() => done(), done);
    },
    handler: async (request, reply) => {
      const row = await callersUpload(ctx, request);
      if (row.asset_id === null) return tus.hand(request, reply);
      return answerFinishedUpload(ctx, request, reply, row);
    },
  });

  app.get(`${resumableUploadsPath}/:id`, { ...finishedAssetDoc, exposeHeadRoute: false }, async (request) => {
    const row = await callersUpload(ctx, request);
    if (row.asset_id === null)
      throw new ApiError(
        409,
        'upload_incomplete',
        'This upload is still missing bytes; send them with PATCH.',
      );
    return assetOfFinishedUpload(ctx, row);
  });

  sweepResumableUploadsWhileOpen(app, ctx, store);
}

/** The upload of `:id`, the caller's (else 404, as if it did not exist); 410 once it expired unfinished. */
async function callersUpload(ctx: AssetsContext, request: FastifyRequest) {
  const id = (request.params as { id: string }).id;
  const row = /^[0-9a-f]{32}$/.test(id) ? await resumableUploadById(ctx.db, id) : undefined;
  if (!row || row.user_id !== request.caller.userId) throw notFound('No such upload.');
  if (row.asset_id === null && row.expires_at <= ctx.clock())
    throw new ApiError(410, 'upload_expired', 'This upload was not finished in time and is gone.');
  return row;
}
