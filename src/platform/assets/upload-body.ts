import { Readable } from 'node:stream';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ApiError, validationFailed } from '../errors';
import { type BlobStore, BlobTooLargeError, type StagedBlob } from '../storage/blob-store';

/** The body of a create request, whatever its form, with the file staged (not yet committed). */
export interface UploadBody {
  fields: Record<string, unknown>;
  fileName: string | undefined;
  staged: StagedBlob;
}

/**
 * Called with the fields seen so far when the file starts, before any of its bytes are read:
 * refuses a bad request early and answers the size limit for this file.
 */
export type BeforeFile = (fields: Record<string, unknown>) => Promise<number>;

/** `asset[file_type]` and `file_type` name the same field (decisions.md: both multipart forms). */
const fieldName = (name: string) => /^asset\[([a-z_]+)\]$/.exec(name)?.[1] ?? name;

const dataUrlPattern = /^data:([\w.+-]+\/[\w.+-]+)?(;[\w-]+=[\w.+-]+)*;base64,([A-Za-z0-9+/]*={0,2})$/;
export const maxJsonFileBytes = 10 * 1024 * 1024;

/** multipart/form-data: fields before the file are checked before the file is read. */
async function readMultipart(
  request: FastifyRequest,
  store: BlobStore,
  beforeFile: BeforeFile,
): Promise<UploadBody> {
  const fields: Record<string, unknown> = {};
  let staged: StagedBlob | undefined;
  let fileName: string | undefined;
  try {
    for await (const part of request.parts()) {
      const name = fieldName(part.fieldname);
      if (part.type === 'file') {
        if (name !== 'file' || staged) {
          part.file.resume();
          throw validationFailed([
            { field: name, message: 'only one file, in the field "file", is accepted' },
          ]);
        }
        const maxBytes = await beforeFile(fields);
        fileName = part.filename;
        staged = await stage(store, part.file, maxBytes);
      } else {
        if (name in fields) throw validationFailed([{ field: name, message: 'is given more than once' }]);
        fields[name] = part.value;
      }
    }
  } catch (error) {
    await staged?.discard();
    throw error;
  }
  if (!staged) throw validationFailed([{ field: 'file', message: 'is required' }]);
  return { fields, fileName, staged };
}

/** JSON with the file as a base64 `data:` URL (small files only), flat or wrapped under `asset`. */
async function readJson(
  request: FastifyRequest,
  store: BlobStore,
  beforeFile: BeforeFile,
): Promise<UploadBody> {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    throw new ApiError(400, 'malformed_request', 'The body must be a JSON object.');
  }
  const raw = body as Record<string, unknown>;
  const wrapped = raw.asset;
  const fields = {
    ...(wrapped && typeof wrapped === 'object' && !Array.isArray(wrapped) ? (wrapped as object) : raw),
  } as Record<string, unknown>;
  const file = fields.file;
  delete fields.file;
  if (file === undefined) throw validationFailed([{ field: 'file', message: 'is required' }]);
  const match = typeof file === 'string' ? dataUrlPattern.exec(file) : null;
  if (!match) throw validationFailed([{ field: 'file', message: 'must be a base64 data: URL' }]);
  const maxBytes = Math.min(await beforeFile(fields), maxJsonFileBytes);
  const bytes = Buffer.from(match[3]!, 'base64');
  const staged = await stage(store, Readable.from([bytes]), maxBytes);
  return { fields, fileName: undefined, staged };
}

/** Stages the file; too many bytes is a 413 that names the limit. */
async function stage(store: BlobStore, source: Readable, maxBytes: number) {
  try {
    return await store.stage(source, { maxBytes });
  } catch (error) {
    if (
      error instanceof BlobTooLargeError ||
      (error as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE'
    ) {
      throw fileTooLarge(maxBytes);
    }
    throw error;
  }
}

export const fileTooLarge = (maxBytes: number) =>
  new ApiError(
    413,
    'file_too_large',
    `The file is larger than the ${Math.round((maxBytes / 1024 / 1024) * 10) / 10} MB limit for this file type.`,
  );

export function readUploadBody(
  request: FastifyRequest,
  store: BlobStore,
  beforeFile: BeforeFile,
): Promise<UploadBody> {
  return request.isMultipart()
    ? readMultipart(request, store, beforeFile)
    : readJson(request, store, beforeFile);
}
