import type { Upload } from '@tus/utils';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { tusVersion } from '../../../shared/api/resumable-uploads';
import { maxBytesFor } from '../../../shared/assets/file-types';
import type { AssetsContext } from '../assets-context';
import { assetById } from '../../db/repositories/assets';
import {
  claimResumableUploadAsset,
  deleteResumableUpload,
  resumableUploadById,
} from '../../db/repositories/resumable-uploads';
import type { ResumableUploadRow } from '../../db/schema';
import { ApiError, notFound } from '../../http/errors';
import { parseCreateFields } from '../asset-input';
import { toApiAsset } from '../asset-records';
import { checkContent, commitAsset, insufficientStorage, writableEntity } from '../create-asset';
import { isDiskFull, type StagedBlob } from '../../storage/blob-store';
import type { ResumableStore } from './resumable-store';
import { tusJsonAnswer, tusProblemAnswer } from './tus-answers';

/**
 * The last byte is in (tus's `onUploadFinish`): the asset, made as POST makes it, answered 200
 * `{"asset": …}`; or why not, in problem+json.
 */
export async function finishResumableUpload(
  ctx: AssetsContext,
  store: ResumableStore,
  request: FastifyRequest,
  upload: Upload,
) {
  try {
    return await makeAssetOfUpload(ctx, store, request, upload);
  } catch (error) {
    if (isDiskFull(error)) return tusProblemAnswer(await insufficientStorage(ctx, request));
    if (error instanceof ApiError) return tusProblemAnswer(error);
    request.log.error({ err: error }, 'a resumable upload could not be made into an asset');
    return tusProblemAnswer(new ApiError(500, 'internal_error', 'Something went wrong on our side.'));
  }
}

/**
 * The asset, made as POST makes it from the bytes the store holds, once per upload (idempotent by
 * the upload id), or the asset a finish before made. A refused file (415, a bad crop) ends the
 * upload: nothing is kept.
 */
async function makeAssetOfUpload(
  ctx: AssetsContext,
  store: ResumableStore,
  request: FastifyRequest,
  upload: Upload,
) {
  const row = await resumableUploadById(ctx.db, upload.id);
  if (!row) throw notFound('No such upload.');
  if (row.asset_id !== null) return tusJsonAnswer(200, await assetOfFinishedUpload(ctx, row));
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
      ...tusJsonAnswer(200, created.response.body),
      headers: { ...tusJsonAnswer(200, null).headers, ...(created.etag ? { ETag: created.etag } : {}) },
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

/** `{"asset": …}` of an upload made into an asset; 404 when that asset was deleted since. */
export async function assetOfFinishedUpload(ctx: AssetsContext, row: ResumableUploadRow) {
  const asset = row.asset_id === null ? undefined : await assetById(ctx.db, row.asset_id);
  if (!asset) throw notFound('The asset this upload made is gone.');
  return { asset: toApiAsset(asset, asset.thumbnail_id ?? null) };
}

/**
 * HEAD, PATCH or DELETE of an upload made into an asset already: its bytes are the asset's now,
 * and its row answers.
 */
export async function answerFinishedUpload(
  ctx: AssetsContext,
  request: FastifyRequest,
  reply: FastifyReply,
  row: ResumableUploadRow,
) {
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
    .send(await assetOfFinishedUpload(ctx, row));
}
