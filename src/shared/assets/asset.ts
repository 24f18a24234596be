import { z } from 'zod';
import { assetableTypes } from '../api/me';

// ---------------------------------------------------------------------------------------------
// Names (decisions.md: trimmed, 1 to 255 characters, no control characters).

/**
 * Characters a name may not contain: C0 and C1 controls, DEL, line and paragraph separators, and
 * the bidirectional marks, embeddings, overrides and isolates. The bidi ones make
 * "invoice\u202Efdp.exe" display as "invoiceexe.pdf".
 * No flags on purpose: the platform reuses `.source` with its own flags to strip them from file names.
 */
export const forbiddenInNames =
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

export const maxNameLength = 255;

/** A name as a user or client gives it; the output is trimmed. Length counts UTF-16 code units. */
export const nameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(maxNameLength, `must be at most ${maxNameLength} characters`)
  .refine((name) => !forbiddenInNames.test(name), 'must not contain control characters');

// ---------------------------------------------------------------------------------------------
// Meta (decisions.md: a JSON object, at most 16 KB serialized; we also cap the nesting).

export const maxMetaBytes = 16 * 1024;
export const maxMetaDepth = 10;

const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * What is wrong with a meta value, as messages about the field `meta`; empty when it is fine.
 * The walk stops at the depth limit, so a hostile or cyclic value cannot exhaust the stack, and
 * it runs before JSON.stringify for the same reason.
 */
export function metaErrors(meta: unknown): string[] {
  if (!isPlainObject(meta)) return ['must be a JSON object'];

  let tooDeep = false;
  let notJson: string | undefined;
  const walk = (value: unknown, depth: number, path: string): void => {
    if (tooDeep || notJson !== undefined) return;
    const isArray = Array.isArray(value);
    if (isArray || isPlainObject(value)) {
      if (depth > maxMetaDepth) {
        tooDeep = true;
        return;
      }
      for (const [key, child] of Object.entries(value)) {
        walk(child, depth + 1, isArray ? `${path}[${key}]` : `${path}.${key}`);
      }
      return;
    }
    const ok =
      value === null ||
      typeof value === 'string' ||
      typeof value === 'boolean' ||
      (typeof value === 'number' && Number.isFinite(value));
    if (!ok) notJson = path;
  };
  walk(meta, 1, 'meta');

  if (tooDeep) return [`must be at most ${maxMetaDepth} levels deep`];
  if (notJson !== undefined) return [`${notJson} is not a JSON value`];
  const bytes = new TextEncoder().encode(JSON.stringify(meta)).length;
  if (bytes > maxMetaBytes)
    return [`must be at most 16 KB as JSON (it is ${Math.ceil(bytes / 102.4) / 10} KB)`];
  return [];
}

/** `meta`: see `metaErrors`. On update, a new meta replaces the old one whole. */
export const metaSchema = z
  .record(z.string(), z.unknown(), { error: 'must be a JSON object' })
  .superRefine((meta, ctx) => {
    for (const message of metaErrors(meta)) ctx.addIssue({ code: 'custom', message });
  });

// ---------------------------------------------------------------------------------------------
// The Asset on the wire (spec 2.2), snake_case as the spec writes it.

/**
 * Read leniently, because it comes from the platform, not from a user: `file_type` stays a string
 * (one the catalog does not know must not make a whole list of assets unreadable: look it up with
 * `findFileType`), and `name` and `meta` are not re-validated. The fields after `thumbnail_id` are
 * our platform's additions; a platform that implements only the spec leaves them out.
 */
export const assetSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  file_type: z.string(),
  assetable: z.object({ type: z.enum(assetableTypes), id: z.number().int() }),
  key: z.string(),
  meta: z.record(z.string(), z.unknown()),
  private: z.boolean(),
  thumbifiable: z.boolean(),
  /** The thumbnail Asset's id, as a string (spec 2.2). */
  thumbnail_id: z.string().optional(),
  content_type: z.string().optional(),
  /**
   * Our platform, on a thumbnail whose PNG is still being made (after the upload's answer): its
   * `download_url` answers 409 `thumbnail_pending` with `Retry-After` until it is ready. Absent otherwise.
   */
  pending: z.literal(true).optional(),
  size: z.number().int().optional(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
  /** The ETag of `GET /v2/core/assets/:id`, in every answer and list: what `If-Match` compares. */
  etag: z.string().optional(),
  /**
   * Our platform, on a driver's licence or utility bill image: the photo's quality as measured at
   * upload (issue 31; src/shared/assets/photo-quality.ts), read-only, recomputed with a new file.
   * Informative only: an upload is never refused for it. Issue names are read as strings, so that
   * a platform that checks more does not make the asset unreadable.
   */
  quality: z
    .object({
      ok: z.boolean(),
      issues: z.array(z.string()),
      measures: z.record(z.string(), z.number()),
    })
    .describe(
      'Licence and bill images: the photo quality measured at upload (read-only). `issues` among `blurry`, `dark`, `overexposed`, `glare`, `low_resolution`; `measures` the numbers behind them.',
    )
    .optional(),
});
export type Asset = z.infer<typeof assetSchema>;

/** Create, read and update answer `{ "asset": {...} }` (spec 4.3, 4.4; decisions.md for update). */
export const assetEnvelopeSchema = z.object({ asset: assetSchema });
export type AssetEnvelope = z.infer<typeof assetEnvelopeSchema>;

/**
 * `PUT /v2/core/assets/:id` body (spec 4.6): only these three attributes are updatable, so any
 * other key is refused rather than silently ignored.
 */
export const assetUpdateSchema = z
  .object({
    asset: z
      .object({ private: z.boolean().optional(), name: nameSchema.optional(), meta: metaSchema.optional() })
      .strict(),
  })
  .strict();
export type AssetUpdate = z.infer<typeof assetUpdateSchema>['asset'];
