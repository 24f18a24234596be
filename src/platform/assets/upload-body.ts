import { Readable } from 'node:stream';
import type {} from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { ApiError, validationFailed } from '../http/errors';
import { type BlobStore, BlobTooLargeError, type StagedBlob } from '../storage/blob-store';
import { fieldPath, MultipartFields } from './multipart-fields';

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

const dataUrlPattern = /^data:([\w.+-]+\/[\w.+-]+)?(;[\w-]+=[\w.+-]+)*;base64,([A-Za-z0-9+/]*={0,2})$/;
export const maxJsonFileBytes = 10 * 1024 * 1024;
/** Text fields a multipart create may have: enough for bracketed meta (`meta[crop][x]`, …). */
export const maxMultipartFields = 100;

/** RFC 2046: a multipart body is unreadable without a boundary of 1 to 70 characters. */
const boundaryPattern = /;\s*boundary\s*=\s*(?:"([^"]{1,70})"|([^\s;"]{1,70}))\s*(;|$)/i;

/**
 * multipart/form-data: fields before the file are checked before the file is read. A body that
 * cannot be read is the client's fault and answers 400 naming it (H9); a client that goes away is
 * logged as such, not as our error (H12); `signal` aborts the reading (a too slow upload, H8).
 */
async function readMultipart(
  request: FastifyRequest,
  store: BlobStore,
  beforeFile: BeforeFile,
  signal: AbortSignal,
): Promise<UploadBody> {
  if (!boundaryPattern.test(request.headers['content-type'] ?? '')) {
    throw new ApiError(
      400,
      'malformed_request',
      'The multipart body has no boundary: send Content-Type: multipart/form-data; boundary=….',
    );
  }
  const fields = new MultipartFields();
  const parts = request.parts();
  let staged: StagedBlob | undefined;
  let fileName: string | undefined;
  try {
    for (;;) {
      const next = await nextPart(parts, signal).catch((error: unknown) => {
        throw multipartFault(error, request);
      });
      if (next.done) break;
      const part = next.value;
      if (part.type === 'file') {
        const name = fieldPath(part.fieldname)?.join('.') ?? part.fieldname;
        if (name !== 'file' || staged) {
          part.file.resume();
          throw validationFailed([
            { field: name, message: 'only one file, in the field "file", is accepted' },
          ]);
        }
        const maxBytes = await beforeFile(fields.result());
        fileName = part.filename;
        const abort = () => part.file.destroy(signal.reason as Error);
        signal.addEventListener('abort', abort, { once: true });
        try {
          staged = await stage(store, part.file, maxBytes);
        } catch (error) {
          // The body's own failures (cut off, client gone, too slow) say so; the disk's pass as they are.
          const fromBody = error === part.file.errored || request.raw.readableAborted;
          throw fromBody ? multipartFault(error, request) : error;
        } finally {
          signal.removeEventListener('abort', abort);
        }
      } else {
        fields.add(part.fieldname, part.value);
      }
    }
  } catch (error) {
    await staged?.discard();
    throw error;
  }
  if (!staged) throw validationFailed([{ field: 'file', message: 'is required' }]);
  return { fields: fields.result(), fileName, staged };
}

/** The next part, or the abort's reason as soon as `signal` aborts. */
function nextPart<T>(parts: AsyncIterator<T>, signal: AbortSignal): Promise<IteratorResult<T>> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    parts
      .next()
      .then(resolve, reject)
      .finally(() => signal.removeEventListener('abort', abort));
  });
}

/** What an error met while reading a multipart body means for the client. */
function multipartFault(error: unknown, request: FastifyRequest): unknown {
  if (error instanceof ApiError) return error;
  if (request.raw.readableAborted) {
    // Not a fault of ours: a cancelled upload, a closed tab, a lost connection.
    request.log.info('upload cancelled: the connection closed before the whole body arrived');
    return new ApiError(499, 'client_closed_request', 'The connection closed before the body was complete.');
  }
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'FST_FILES_LIMIT')
    return validationFailed([{ field: 'file', message: 'only one file, in the field "file", is accepted' }]);
  if (code === 'FST_FIELDS_LIMIT' || code === 'FST_PARTS_LIMIT')
    return validationFailed([{ field: 'body', message: `has more than ${maxMultipartFields} fields` }]);
  if (code === 'FST_PROTO_VIOLATION')
    return validationFailed([{ field: 'body', message: 'has a field named like an object property' }]);
  const reason = error instanceof Error ? error.message : String(error);
  return new ApiError(400, 'malformed_request', `The multipart body could not be read: ${reason}.`);
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
  signal: AbortSignal,
): Promise<UploadBody> {
  return request.isMultipart()
    ? readMultipart(request, store, beforeFile, signal)
    : readJson(request, store, beforeFile);
}
