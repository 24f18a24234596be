import { z } from 'zod';
import { assetableTypes } from '../api/me';

/** Names: trimmed, 1 to 255 characters, no control or bidirectional-override characters. */
// eslint-disable-next-line no-control-regex
export const forbiddenInNames = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
export const nameSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(255, 'must be at most 255 characters')
  .refine((name) => !forbiddenInNames.test(name), 'must not contain control characters');

export const maxMetaBytes = 16 * 1024;
export const maxMetaDepth = 10;

const depthOf = (value: unknown): number =>
  value !== null && typeof value === 'object'
    ? 1 + Math.max(0, ...Object.values(value as Record<string, unknown>).map(depthOf))
    : 0;

/** `meta`: a JSON object, at most 16 KB serialized and 10 levels deep. */
export const metaSchema = z
  .record(z.string(), z.unknown(), { error: 'must be a JSON object' })
  .refine(
    (meta) => new TextEncoder().encode(JSON.stringify(meta)).length <= maxMetaBytes,
    'must be at most 16 KB as JSON',
  )
  .refine((meta) => depthOf(meta) <= maxMetaDepth, `must be at most ${maxMetaDepth} levels deep`);

const pixel = z.number().int('must be a whole number of pixels');
/** `meta.crop`: a rectangle in pixels of the original image after EXIF orientation. */
export const cropSchema = z
  .object({
    x: pixel.min(0, 'must not be negative'),
    y: pixel.min(0, 'must not be negative'),
    width: pixel.min(1, 'must be at least 1'),
    height: pixel.min(1, 'must be at least 1'),
  })
  .strict();
export type Crop = z.infer<typeof cropSchema>;

export const cropFitsImage = (crop: Crop, image: { width: number; height: number }) =>
  crop.x + crop.width <= image.width && crop.y + crop.height <= image.height;

/** The Asset of spec 2.2, with our additions (content type, size, pixels, times). */
export const assetSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  file_type: z.string(),
  assetable: z.object({ type: z.enum(assetableTypes), id: z.number().int() }),
  key: z.string(),
  meta: z.record(z.string(), z.unknown()),
  private: z.boolean(),
  thumbifiable: z.boolean(),
  thumbnail_id: z.string().optional(),
  content_type: z.string(),
  size: z.number().int(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Asset = z.infer<typeof assetSchema>;

export const assetEnvelopeSchema = z.object({ asset: assetSchema });
