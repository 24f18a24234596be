import { z } from 'zod';
import { assetableTypes } from '../../shared/api/me';
import { forbiddenInNames, metaSchema, nameSchema } from '../../shared/assets/asset';
import { cropFitsImage, cropProblems, type Crop } from '../../shared/assets/crop';
import { findFileType, type FileTypeInfo } from '../../shared/assets/file-types';
import type { FieldError } from '../../shared/api/problem';
import { validationFailed } from '../http/errors';

/** Multipart sends every field as a string: meta is a JSON string, private "true"/"false". */
const jsonObject = z.preprocess((value) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return value;
  }
}, metaSchema);
const booleanField = z.preprocess(
  (value) => (value === 'true' || value === '1' ? true : value === 'false' || value === '0' ? false : value),
  z.boolean(),
);
const positiveId = z.preprocess(
  (value) => (typeof value === 'string' && /^[1-9][0-9]{0,15}$/.test(value) ? Number(value) : value),
  z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
);

const createFieldsSchema = z.object({
  file_type: z.string().min(1),
  assetable_type: z.enum(assetableTypes),
  assetable_id: positiveId,
  name: nameSchema.optional(),
  meta: jsonObject.optional(),
  private: booleanField.optional(),
});
export type CreateFields = z.infer<typeof createFieldsSchema>;

const fieldErrors = (error: z.ZodError): FieldError[] =>
  error.issues.map((issue) => ({ field: issue.path.join('.') || 'body', message: issue.message }));

/** Validates the create fields; every problem is a 422 naming its field (U1, U3, U9, U10). */
export function parseCreateFields(
  fields: Record<string, unknown>,
): CreateFields & { fileType: FileTypeInfo } {
  const parsed = createFieldsSchema.safeParse(fields);
  if (!parsed.success) throw validationFailed(fieldErrors(parsed.error));
  const fileType = findFileType(parsed.data.file_type);
  if (!fileType)
    throw validationFailed([
      { field: 'file_type', message: `"${parsed.data.file_type}" is not a file type of this platform` },
    ]);
  if (fileType.assetableType !== parsed.data.assetable_type) {
    throw validationFailed([
      {
        field: 'file_type',
        message: `a ${parsed.data.file_type} belongs to a ${fileType.assetableType}, not a ${parsed.data.assetable_type}`,
      },
    ]);
  }
  return { ...parsed.data, fileType };
}

/** Only the fields a create request may have been refused for early, before the file. */
export function parseEarlyFields(fields: Record<string, unknown>) {
  const present = Object.fromEntries(
    ['file_type', 'assetable_type', 'assetable_id'].filter((k) => k in fields).map((k) => [k, fields[k]]),
  );
  if (Object.keys(present).length < 3) return undefined;
  return parseCreateFields(present);
}

const updateSchema = z
  .object({
    asset: z
      .object({ private: z.boolean().optional(), name: nameSchema.optional(), meta: metaSchema.optional() })
      .strict(),
  })
  .strict();
export type UpdateBody = z.infer<typeof updateSchema>['asset'];

export function parseUpdateBody(body: unknown): UpdateBody {
  const parsed = updateSchema.safeParse(body);
  if (!parsed.success) throw validationFailed(fieldErrors(parsed.error));
  return parsed.data.asset;
}

/**
 * A file name from a multipart part, made safe to show: its base name only, without control or
 * bidirectional-override characters, at most 255 characters. (An explicit `name` field is validated
 * strictly instead.)
 */
export function nameFromFileName(fileName: string | undefined): string | undefined {
  if (!fileName) return undefined;
  // Browsers (HTML spec, multipart/form-data encoding) send " as %22 and line breaks as %0D %0A.
  const decoded = fileName.replace(/%22/g, '"').replace(/%0D|%0A/gi, '');
  const base = decoded.split(/[/\\]/).pop() ?? '';
  const clean = base
    .normalize('NFC')
    // Same characters a `name` field may not contain.
    .replace(new RegExp(forbiddenInNames.source, 'g'), '')
    .trim()
    .slice(0, 255)
    .trim();
  return clean && clean !== '.' && clean !== '..' ? clean : undefined;
}

/** `meta.crop`, when present, must be integers inside the (oriented) image (decisions.md). */
export function checkCrop(meta: Record<string, unknown>, image: { width: number; height: number } | null) {
  if (!('crop' in meta)) return;
  const problems = cropProblems(meta.crop);
  if (problems.length > 0) {
    throw validationFailed(
      problems.map(({ field, message }) => ({
        field: ['meta', 'crop', field].filter(Boolean).join('.'),
        message,
      })),
    );
  }
  if (!image) throw validationFailed([{ field: 'meta.crop', message: 'only images can be cropped' }]);
  if (!cropFitsImage(meta.crop as Crop, image)) {
    throw validationFailed([
      { field: 'meta.crop', message: `must lie inside the ${image.width}×${image.height} image` },
    ]);
  }
}
