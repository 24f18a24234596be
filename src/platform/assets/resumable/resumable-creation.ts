import type { FastifyRequest } from 'fastify';
import type { AssetsContext } from '../assets-context';
import { insertResumableUpload } from '../../db/repositories/resumable-uploads';
import { writableEntity } from '../create-asset';
import { checkUploadMetadata, type CheckedMetadata } from './upload-metadata';

/**
 * A creation's metadata, checked as POST /v2/core/assets checks its form, before any byte: its
 * fields and length (upload-metadata.ts), then the entity, which the caller must be allowed to
 * write (404, 403).
 */
export async function checkCreation(ctx: AssetsContext, request: FastifyRequest): Promise<CheckedMetadata> {
  const metadata = checkUploadMetadata(request.headers, ctx.config.maxUploadBytes);
  await writableEntity(ctx, request, metadata.input);
  return metadata;
}

/**
 * The row of an upload tus has just created: it names its owner (another user's upload is 404, as
 * an asset they may not see), keeps the checked fields for the finish, and says when it expires.
 */
export async function recordCreatedUpload(
  ctx: AssetsContext,
  request: FastifyRequest,
  metadata: CheckedMetadata,
  uploadId: string,
) {
  const now = ctx.clock();
  await insertResumableUpload(ctx.db, {
    id: uploadId,
    user_id: request.caller.userId,
    size: metadata.size,
    fields: JSON.stringify({ ...metadata.fields, file_name: metadata.fileName }),
    created_at: now,
    expires_at: now + ctx.config.resumableUploadExpiryMs,
    asset_id: null,
  });
}
