import { z } from 'zod';
import { cropOf, type Crop } from '../../shared/assets/crop';
import type { AssetRow } from '../db/schema';
import { validationFailed } from '../http/errors';

/**
 * What `GET .../download_url?variant=&width=` may ask for, and what it means for one asset.
 *
 * - `cropped`: `meta.crop` (pixels of the EXIF-oriented original) cut out of the oriented image, or
 *   the whole oriented image when there is no crop; full size unless a width is asked for.
 * - `preview`: the whole oriented image, never cropped (the crop editor needs the whole picture),
 *   resized to a width; 640 px when none is asked for.
 *
 * Both are WebP. The format is not negotiated: the URL is asked for by the API client (which sends
 * `Accept: application/json`), the bytes are fetched later by an `<img>`, and every browser the web
 * app supports decodes WebP. One format keeps one cache entry per rendition and no `Vary: Accept`.
 */
export const variants = ['original', 'cropped', 'preview'] as const;
export type Variant = (typeof variants)[number];
export type RenditionVariant = Exclude<Variant, 'original'>;

/**
 * Widths are rounded up to one of these, so that the cache holds a bounded number of files per
 * asset and any width a client asks for hits a file someone else already made. 800 is the web
 * app's detail view.
 */
export const renditionWidths = [160, 320, 640, 800, 1280, 1920] as const;
/** The largest width a client may ask for at all; anything above is a mistake, not a screen. */
export const maxRequestedWidth = 4096;
export const defaultPreviewWidth = 640;

/** The query of `GET .../download_url`, as validated (a bad value is a 422 naming the field) and documented. */
export const renditionQuery = z.object({
  variant: z
    .enum(variants)
    .default('original')
    .describe(
      'original: the stored file. cropped: meta.crop applied (the whole image without one), WebP. ' +
        'preview: the whole image resized, WebP. Renditions exist for images only.',
    ),
  width: z.coerce
    .number()
    .int()
    .min(1)
    .max(maxRequestedWidth)
    .optional()
    .describe(
      `Renditions only: a width in pixels, rounded up to one of ${renditionWidths.join(', ')} ` +
        `(never enlarged). Preview default: ${defaultPreviewWidth}; cropped default: full size.`,
    ),
  disposition: z
    .enum(['attachment'])
    .optional()
    .describe(
      'attachment: the URL delivers the file with Content-Disposition: attachment, so that a browser ' +
        'saves it (an image or a PDF is otherwise shown inline). Our extension, like variant.',
    ),
});

const rowCrops = new WeakMap<object, Crop | null>();

/**
 * The crop in an asset row's meta, parsed once per row read: delivering a cropped rendition needs
 * it twice (the URL's state, then the rendition), where an original needs no parse at all.
 */
export function cropOfRow(row: Pick<AssetRow, 'meta'>): Crop | null {
  let crop = rowCrops.get(row);
  if (crop === undefined) {
    crop = cropOf(JSON.parse(row.meta) as Record<string, unknown>) ?? null;
    rowCrops.set(row, crop);
  }
  return crop;
}

/** Raster formats sharp decodes and the upload sniffing accepts; SVG is never among them. */
const renderableTypes = new Set(['image/jpeg', 'image/png', 'image/webp', 'image/gif', 'image/avif']);

export const isRenderable = (contentType: string) => renderableTypes.has(contentType);

export interface RenditionSpec {
  variant: RenditionVariant;
  /** One of `renditionWidths`, or null for the full size of the (cropped) image. */
  width: number | null;
  /** The crop to apply; null for the whole oriented image. */
  crop: Crop | null;
}

/** The smallest allowed width at least `width`; the largest allowed one beyond that. */
export function roundWidth(width: number): number {
  return renditionWidths.find((w) => w >= width) ?? renditionWidths[renditionWidths.length - 1]!;
}

/**
 * The rendition a request names for this asset, or null for the original. Throws 422 naming the
 * field when the request makes no sense for the asset. Rounding is idempotent, so delivery can run
 * the widths of a signed URL through here again.
 */
export function renditionFor(
  row: Pick<AssetRow, 'content_type' | 'meta'>,
  query: { variant: 'original' | RenditionVariant; width?: number | undefined },
): RenditionSpec | null {
  const { variant, width } = query;
  if (variant === 'original') {
    if (width !== undefined) {
      throw validationFailed([
        { field: 'width', message: 'applies to renditions only (variant "cropped" or "preview")' },
      ]);
    }
    return null;
  }
  if (!isRenderable(row.content_type)) {
    throw validationFailed([
      {
        field: 'variant',
        message: `"${variant}" exists for images only; this file is ${row.content_type}, ask for "original"`,
      },
    ]);
  }
  if (width !== undefined && !(Number.isInteger(width) && width >= 1 && width <= maxRequestedWidth)) {
    throw validationFailed([
      { field: 'width', message: `must be a whole number of pixels from 1 to ${maxRequestedWidth}` },
    ]);
  }
  if (variant === 'preview') {
    return { variant, width: roundWidth(width ?? defaultPreviewWidth), crop: null };
  }
  return { variant, width: width === undefined ? null : roundWidth(width), crop: cropOfRow(row) };
}

/** How a crop appears in a cache file's name: `c<x>_<y>_<width>_<height>`, or `whole`. */
export const cropTag = (crop: Crop | null) =>
  crop ? `c${crop.x}_${crop.y}_${crop.width}_${crop.height}` : 'whole';

/**
 * The part of a cache file's name that says what is in it. The crop is written out rather than
 * hashed: exact, collision-free, and nothing secret (the asset's meta shows it to every reader).
 */
export function renditionName(spec: RenditionSpec): string {
  const size = spec.width === null ? 'full' : `w${spec.width}`;
  if (spec.variant === 'preview') return `preview-${size}`;
  return `cropped-${cropTag(spec.crop)}-${size}`;
}
