import { Metadata } from '@tus/utils';
import { uploadMetadataKeys as keys } from '../../../shared/api/resumable-uploads';
import { contentKinds, maxBytesFor, type FileTypeInfo } from '../../../shared/assets/file-types';
import { ApiError, validationFailed } from '../../http/errors';
import { parseCreateFields, type CreateFields } from '../asset-input';
import { fileTooLarge } from '../upload-body';

/** What a resumable upload's creation carries, checked: the create fields of `POST /v2/core/assets`. */
export interface CheckedMetadata {
  /** As the form fields of POST, for `parseCreateFields` again at the finish. */
  fields: Record<string, string>;
  input: CreateFields & { fileType: FileTypeInfo };
  /** The file's name as the user's system gave it (the CSV sniffing reads its extension). */
  fileName: string | undefined;
  size: number;
}

/**
 * Reads `Upload-Length` and `Upload-Metadata` and checks them as POST checks its form, before any
 * byte: 422 for a bad field, 413 for a length over the file type's limit, 415 for a declared media
 * type the file type does not take. The entity (404/403) is the caller's to check, with the caller.
 */
export function checkUploadMetadata(
  headers: Record<string, string | string[] | undefined>,
  maxUploadBytes: number,
): CheckedMetadata {
  const length = headerOf(headers, 'upload-length');
  if (length === undefined || !/^(0|[1-9][0-9]{0,15})$/.test(length))
    throw validationFailed([
      { field: 'Upload-Length', message: 'is required: the size of the whole file, in bytes' },
    ]);
  let metadata: Record<string, string | null>;
  try {
    metadata = Metadata.parse(headerOf(headers, 'upload-metadata'));
  } catch {
    throw validationFailed([
      { field: 'Upload-Metadata', message: 'must be comma-separated keys with base64 values' },
    ]);
  }
  const fields: Record<string, string> = {};
  for (const key of [
    keys.fileType,
    keys.assetableType,
    keys.assetableId,
    keys.name,
    keys.meta,
    keys.private,
  ]) {
    const value = metadata[key];
    if (typeof value === 'string') fields[key] = value;
  }
  const input = parseCreateFields(fields);
  const fileName = metadata[keys.filenameAlias] ?? metadata[keys.name] ?? undefined;
  if (!input.name && !fileName)
    throw validationFailed([{ field: 'name', message: 'is required (or filename) in Upload-Metadata' }]);

  const size = Number(length);
  const limit = maxBytesFor(input.fileType, maxUploadBytes);
  if (size > limit) throw fileTooLarge(limit);
  if (size === 0) throw validationFailed([{ field: 'file', message: 'is empty' }]);

  const declared = metadata[keys.contentType]?.split(';')[0]?.trim().toLowerCase();
  // Browsers declare nothing, or application/octet-stream, for a type they do not know: the bytes
  // decide at the finish, as for POST.
  if (declared && declared !== 'application/octet-stream') {
    const accepted = input.fileType.accepts.some(
      (kind) => contentKinds[kind].mime === declared || contentKinds[kind].otherMimes.includes(declared),
    );
    if (!accepted)
      throw new ApiError(
        415,
        'unsupported_content',
        `A ${input.fileType.fileType} does not accept ${declared} files.`,
      );
  }
  return { fields, input, fileName: fileName ?? undefined, size };
}

function headerOf(headers: Record<string, string | string[] | undefined>, name: string) {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}
