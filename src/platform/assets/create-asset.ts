import type { FastifyRequest } from 'fastify';
import type { AssetableType } from '../../shared/api/me';
import type { FileTypeInfo } from '../../shared/assets/file-types';
import type { DbTransaction } from '../db/database';
import type { AssetRow } from '../db/schema';
import { maxBytesFor, maxImagePixels } from '../../shared/assets/file-types';
import { isPhotoChecked, type PhotoQuality } from '../../shared/assets/photo-quality';
import { measureStoredPhoto } from '../media/photo-quality';
import type { AssetsContext } from './assets-context';
import { insertAsset, insertPendingThumbnail } from '../db/repositories/assets';
import { ApiError, forbidden, notFound, validationFailed } from '../http/errors';
import { entityAccess, findEntity } from '../access/entity-access';
import { recordAccreditationFileChange } from '../evidence/file-history';
import type { BegunRender } from '../media/pending-thumbnails';
import { thumbnailName } from '../media/pdf-thumbnails';
import { isDiskFull, type StagedBlob } from '../storage/blob-store';
import {
  checkCrop,
  nameFromFileName,
  parseCreateFields,
  parseEarlyFields,
  type CreateFields,
} from './asset-input';
import { etagOf, toApiAsset } from './asset-records';
import { sniffContent, type Sniffed } from './content-sniffing';
import { IdempotencyKeys, requestHash, type StoredResponse } from './idempotency';
import { claimName } from '../shared-state/running-claims';
import { probeImage, type ImageSize } from '../media/image-probe';
import { fileTooLarge, readUploadBody } from './upload-body';

export interface Created {
  response: StoredResponse;
  etag?: string;
}

/** The entity must exist, be visible to the caller (else 404) and be theirs to write (else 403). */
export async function writableEntity(
  ctx: AssetsContext,
  request: FastifyRequest,
  input: Pick<CreateFields, 'assetable_type' | 'assetable_id'>,
) {
  const entity = await findEntity(ctx.db, input.assetable_type, input.assetable_id);
  const access = entity ? entityAccess(request.caller, entity) : 'none';
  if (!entity || access === 'none') throw notFound(`No ${input.assetable_type} ${input.assetable_id}.`);
  if (access !== 'write') throw forbidden(`You may not add files to this ${input.assetable_type}.`);
  return entity;
}

/**
 * `POST /v2/core/assets`: stream the file to a staging area (hashing and counting on the way),
 * check everything, then commit the bytes and insert the row. Any failure leaves nothing behind:
 * no row, no file, no temporary file.
 */
export async function createAsset(
  ctx: AssetsContext,
  request: FastifyRequest,
  signal: AbortSignal,
): Promise<Created> {
  const caller = request.caller;
  const idempotency = new IdempotencyKeys(ctx);
  const key = idempotency.parseHeader(request.headers['idempotency-key']);
  const claim = key ? await idempotency.claim(caller.userId, key) : undefined;
  // So that another instance starting meanwhile does not release the key as cut off.
  const running =
    claim?.kind === 'new' ? await ctx.runningClaims.hold(claimName(caller.userId, key!)) : undefined;

  let staged: StagedBlob | undefined;
  let inserted = false;
  try {
    const body = await readUploadBody(
      request,
      ctx.blobs,
      async (fieldsSoFar) => {
        // Refuse a bad target before reading a byte of the file, when the fields came first.
        const early = parseEarlyFields(fieldsSoFar);
        if (!early) return ctx.config.maxUploadBytes;
        await writableEntity(ctx, request, early);
        return maxBytesFor(early.fileType, ctx.config.maxUploadBytes);
      },
      signal,
    );
    staged = body.staged;
    const input = parseCreateFields(body.fields);
    const entity = await writableEntity(ctx, request, input);
    const checked = await checkContent(ctx, staged, input, body.fileName);

    const hash = requestHash({ ...input, fileType: undefined, name: checked.name }, staged.sha256);
    if (claim?.kind === 'replay') {
      await staged.discard();
      staged = undefined;
      if (claim.requestHash !== hash) {
        throw new ApiError(
          422,
          'idempotency_key_reused',
          'This Idempotency-Key was already used for a different request.',
        );
      }
      return { response: claim.response };
    }

    const created = await commitAsset(
      ctx,
      request,
      { input, entity, staged, ...checked },
      async (trx, response) => {
        if (key && claim?.kind === 'new')
          await idempotency.complete(trx, caller.userId, key, claim.claimedAt, hash, response);
      },
    );
    inserted = true;
    return created;
  } catch (error) {
    if (isDiskFull(error)) throw await insufficientStorage(ctx, request);
    throw error;
  } finally {
    running?.release();
    if (!inserted) {
      await undoFailedCreate(request, [
        () => staged?.discard(),
        () =>
          key && claim?.kind === 'new' ? idempotency.release(caller.userId, key, claim.claimedAt) : undefined,
      ]);
    }
  }
}

/** What the bytes turned out to be, and the asset's name and meta. */
export interface CheckedContent {
  sniffed: Extract<Sniffed, { mime: string }>;
  name: string;
  meta: Record<string, unknown>;
}

/**
 * The checks of the bytes once they are all in, the same for `POST /v2/core/assets` and a finished
 * resumable upload: within the type's size limit, not empty, of a kind the type accepts (sniffed,
 * never the client's word: 415), and named.
 */
export async function checkContent(
  ctx: AssetsContext,
  staged: Pick<StagedBlob, 'size' | 'head'>,
  input: CreateFields & { fileType: FileTypeInfo },
  fileName: string | undefined,
): Promise<CheckedContent> {
  const fileType = input.fileType;
  const limit = maxBytesFor(fileType, ctx.config.maxUploadBytes);
  // Fields sent after the file: the limit of this file type is known only now.
  if (staged.size > limit) throw fileTooLarge(limit);
  if (staged.size === 0) throw validationFailed([{ field: 'file', message: 'is empty' }]);
  const sniffed = await sniffContent(staged.head, fileName ?? input.name);
  if (sniffed.kind === 'refused' || !fileType.accepts.includes(sniffed.kind)) {
    const what = sniffed.kind === 'refused' ? sniffed.what : `a ${sniffed.kind.toUpperCase()} file`;
    throw new ApiError(
      415,
      'unsupported_content',
      `This file is ${what}, which a ${fileType.fileType} does not accept.`,
    );
  }
  const name = input.name ?? nameFromFileName(fileName);
  if (!name) throw validationFailed([{ field: 'name', message: 'is required when the file has no name' }]);
  return { sniffed, name, meta: input.meta ?? {} };
}

export interface AssetToCommit extends CheckedContent {
  input: CreateFields & { fileType: FileTypeInfo };
  entity: { type: AssetableType; id: number };
  staged: StagedBlob;
}

/**
 * Commits checked bytes and inserts the asset's rows, as `POST /v2/core/assets` and a finished
 * resumable upload both do: the image probe and crop check, the PDF thumbnail begun while the rows
 * commit, one transaction (with `inTransaction`'s writes: the Idempotency-Key, the upload's row).
 * On failure nothing is kept: the committed bytes are deleted again.
 */
export async function commitAsset(
  ctx: AssetsContext,
  request: FastifyRequest,
  { input, entity, staged, sniffed, name, meta }: AssetToCommit,
  inTransaction: (trx: DbTransaction, response: StoredResponse, row: AssetRow) => Promise<void>,
): Promise<Created> {
  const fileType = input.fileType;
  const caller = request.caller;
  let thumbnailRender: BegunRender | undefined;
  let inserted = false;
  await staged.commit();
  try {
    const image =
      fileType.documentType === 'image'
        ? await probeImage(await openBlob(ctx, staged.key), maxImagePixels)
        : null;
    checkCrop(meta, image);
    const quality =
      image && isPhotoChecked(fileType.fileType) ? await photoQuality(ctx, request, staged.key, image) : null;
    const thumbnailed =
      fileType.thumbifiable && sniffed.kind === 'pdf' && wantsThumbnail(ctx, request, staged.size);
    // Drawn from the stored PDF while the rows commit and the answer goes, when a worker is free.
    if (thumbnailed) thumbnailRender = ctx.thumbnails.begin({ key: staged.key, size: staged.size });

    const now = ctx.clock();
    const created = await ctx.db.transaction().execute(async (trx) => {
      const row = await insertAsset(trx, {
        name,
        file_type: fileType.fileType,
        assetable_type: entity.type,
        assetable_id: entity.id,
        blob_key: staged.key,
        content_type: sniffed.mime,
        size: staged.size,
        sha256: staged.sha256,
        width: image?.width ?? null,
        height: image?.height ?? null,
        meta: JSON.stringify(meta),
        quality: quality ? JSON.stringify(quality) : null,
        private: (input.private ?? fileType.privateByDefault) ? 1 : 0,
        version: 1,
        created_by: caller.userId,
        created_at: now,
        updated_at: now,
      });
      // The thumbnail is made after this answer (pdf.js takes a worker tens of milliseconds to
      // seconds): its row is reserved now, pending, so that its id is in the 201.
      const thumbnailId = thumbnailed
        ? await insertPendingThumbnail(trx, row, {
            name: thumbnailName(row.name),
            blobKey: ctx.blobs.reserveKey(),
            renderBegun: thumbnailRender !== undefined,
          })
        : null;
      await recordAccreditationFileChange(trx, { after: row, actorId: caller.userId, at: now });
      const response = { status: 201, body: { asset: toApiAsset(row, thumbnailId) } };
      await inTransaction(trx, response, row);
      return { response, etag: etagOf(row), thumbnailId };
    });
    inserted = true;
    if (created.thumbnailId !== null) ctx.thumbnails.make(created.thumbnailId, thumbnailRender);
    return { response: created.response, etag: created.etag };
  } finally {
    if (!inserted) {
      thumbnailRender?.abandon();
      await undoFailedCreate(request, [() => ctx.blobs.delete(staged.key)]);
    }
  }
}

/**
 * Each undo of a failed create runs whatever the others meet: a bucket that is down must not keep
 * the Idempotency-Key claimed (its retry would answer 409), nor a database that is down the file.
 * What fails stays for the sweep (a file no row names) or for the next request with the key
 * (which takes over a claim whose request no longer runs); the client's answer is the first error.
 */
async function undoFailedCreate(request: FastifyRequest, steps: (() => Promise<unknown> | undefined)[]) {
  const results = await Promise.allSettled(steps.map((step) => step()));
  for (const result of results) {
    if (result.status === 'rejected')
      request.log.warn(
        `after a failed upload, cleaning up failed too (left for later): ${String(result.reason)}`,
      );
  }
}

/**
 * The quality of a licence or bill photo (issue 31), or null when it cannot be measured: the check
 * informs the reviewer and never refuses an upload, so a photo sharp cannot decode (its header was
 * fine) goes through without it, with a log line.
 */
async function photoQuality(
  ctx: AssetsContext,
  request: FastifyRequest,
  key: string,
  size: ImageSize,
): Promise<PhotoQuality | null> {
  try {
    return await measureStoredPhoto(await openBlob(ctx, key), size);
  } catch (error) {
    request.log.warn({ err: error }, 'photo quality not measured: the image could not be decoded');
    return null;
  }
}

/**
 * Whether a PDF of a thumbifiable type gets a thumbnail: not when thumbnails are off, nor over
 * their size limit (the log says so; the upload goes on without one).
 */
function wantsThumbnail(ctx: AssetsContext, request: FastifyRequest, size: number): boolean {
  const { workers, maxBytes } = ctx.config.pdfThumbnails;
  const reason = workers === 0 ? 'disabled' : size > maxBytes ? 'too_large' : undefined;
  if (reason === undefined) return true;
  request.log[reason === 'disabled' ? 'debug' : 'warn']({ reason, size }, 'PDF uploaded without a thumbnail');
  return false;
}

/** A full disk is no bug (H11): a 507 for the client, and one log line saying how much room is left. */
export async function insufficientStorage(ctx: AssetsContext, request: FastifyRequest) {
  const freeBytes = await ctx.blobs.freeBytes().catch(() => undefined);
  request.log.error({ freeBytes }, 'upload refused: the disk is full');
  return new ApiError(
    507,
    'insufficient_storage',
    'The platform has no room to store this file right now; nothing was kept. Try again later.',
    undefined,
    // The rest of the body is unread: close rather than take it in.
    { connection: 'close' },
  );
}

export async function openBlob(ctx: AssetsContext, key: string) {
  const stream = await ctx.blobs.open(key);
  if (!stream) throw new Error(`blob ${key} is missing`);
  return stream;
}
