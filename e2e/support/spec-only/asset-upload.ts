import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { finished, pipeline } from 'node:stream/promises';
import type { FastifyRequest } from 'fastify';
import type { AssetStore, StoredAsset } from './asset-store';
import { type AssetableType, assetableTypes, specFileTypes } from './fixtures';
import { HttpError } from './http';

/** Not shown in the spec: 255 characters, a Rails string column's usual limit. */
const maxNameLength = 255;

interface Upload {
  filePath: string;
  filename: string;
  contentType: string;
}

/**
 * Reads spec 4.3's flat multipart body, streaming the file to disk (never held in memory). Unknown
 * fields (`private`, `asset[...]`, …) are ignored, as a Rails controller's permitted params would.
 * Whatever goes wrong, no file is left behind.
 */
export async function readUpload(
  request: FastifyRequest,
  store: AssetStore,
  maxUploadBytes: number,
  checkAssetable: (assetable: StoredAsset['assetable']) => void,
): Promise<Omit<StoredAsset, 'id' | 'key'>> {
  // The spec allows a JSON body, but JSON has no way to carry the file's bytes that the spec shows.
  if (!request.isMultipart()) throw new HttpError(422, 'File is required: send multipart/form-data');
  const fields = new Map<string, unknown>();
  let upload: Upload | undefined;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        fields.set(part.fieldname, part.value);
      } else if (part.fieldname !== 'file' || upload) {
        await finished(part.file.resume());
      } else {
        // Served back as declared; a part that declares no type gets RFC 7578's text/plain from busboy.
        upload = { filePath: store.uploadPath(), filename: part.filename, contentType: part.mimetype };
        await pipeline(part.file, createWriteStream(upload.filePath));
        if (part.file.truncated) throw new HttpError(413, `The file is larger than ${maxUploadBytes} bytes`);
      }
    }
    const valid = validFields(fields, upload);
    checkAssetable(valid.assetable);
    return { ...valid, filePath: upload!.filePath, contentType: upload!.contentType };
  } catch (error) {
    if (upload) await rm(upload.filePath, { force: true });
    throw error;
  }
}

function validFields(fields: Map<string, unknown>, upload: Upload | undefined) {
  const errors: string[] = [];
  const text = (name: string) => {
    const value = fields.get(name);
    return typeof value === 'string' ? value : undefined;
  };

  if (!upload) errors.push("File can't be blank");

  const fileTypeName = text('file_type');
  const fileType = fileTypeName === undefined ? undefined : specFileTypes[fileTypeName];
  if (!fileTypeName) errors.push("File type can't be blank");
  else if (!fileType) errors.push(`File type ${fileTypeName} does not exist`);

  const assetableType = text('assetable_type') as AssetableType | undefined;
  if (!assetableType || !assetableTypes.includes(assetableType)) {
    errors.push(`Assetable type must be one of ${assetableTypes.join(', ')}`);
  } else if (fileType?.assetableType && fileType.assetableType !== assetableType) {
    errors.push(`File type ${fileTypeName} belongs to a ${fileType.assetableType}, not a ${assetableType}`);
  }

  const assetableId = text('assetable_id');
  if (!assetableId || !/^\d+$/.test(assetableId)) errors.push('Assetable id must be an integer');

  // The spec does not say which fields are required; a name defaults to the file's, as most APIs do.
  const name = text('name') ?? upload?.filename ?? '';
  if (name === '') errors.push("Name can't be blank");
  if (name.length > maxNameLength) errors.push(`Name is too long (maximum is ${maxNameLength} characters)`);

  const meta = readMeta(fields, errors);

  if (errors.length > 0) throw new HttpError(422, errors);
  return {
    name,
    file_type: fileTypeName!,
    assetable: { type: assetableType!, id: Number(assetableId) },
    meta,
    private: false,
  };
}

/**
 * `meta` as a JSON text field (or a part sent as application/json), and/or Rails-style bracketed
 * fields: `meta[crop][x]=10` → `{crop: {x: "10"}}`, values staying strings as Rails leaves them.
 */
function readMeta(fields: Map<string, unknown>, errors: string[]): Record<string, unknown> {
  let meta: Record<string, unknown> = {};
  const whole = fields.get('meta');
  if (whole !== undefined) {
    const value = typeof whole === 'string' ? parseJson(whole) : whole;
    if (!isObject(value)) errors.push('Meta must be a JSON object');
    else meta = value;
  }
  for (const [name, value] of fields) {
    if (!name.startsWith('meta[')) continue;
    const path = /^meta((?:\[[^[\]]+\])+)$/.exec(name)?.[1]?.slice(1, -1).split('][');
    if (!path || path.some((key) => key in Object.prototype) || !setNested(meta, path, value)) {
      errors.push(`Meta field ${name} cannot be read`);
    }
  }
  return meta;
}

function setNested(target: Record<string, unknown>, path: string[], value: unknown): boolean {
  let node = target;
  for (const key of path.slice(0, -1)) {
    const next = node[key] ?? {};
    if (!isObject(next)) return false;
    node = node[key] = next;
  }
  const last = path[path.length - 1]!;
  if (isObject(node[last])) return false;
  node[last] = value;
  return true;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
