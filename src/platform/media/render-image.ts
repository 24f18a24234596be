import sharp from 'sharp';
import { maxImagePixels } from '../../shared/assets/file-types';
import { ApiError, validationFailed } from '../http/errors';
import type { RenditionSpec } from './rendition-request';

/** WebP cannot hold more than this many pixels a side; a full-size rendition is fitted inside. */
const maxWebpSide = 16383;

/**
 * A backstop, not a budget: 100 megapixels decode and encode in a few seconds on a slow core. An
 * image still running after this is hostile or broken, and it would hold a libvips thread.
 */
export const renderTimeoutSeconds = 20;

export interface RenderLimits {
  maxPixels: number;
  timeoutSeconds: number;
}

export const defaultRenderLimits: RenderLimits = {
  maxPixels: maxImagePixels,
  timeoutSeconds: renderTimeoutSeconds,
};

/**
 * The rendition of `input` as WebP: auto-oriented by EXIF first, so the crop is in the oriented
 * pixels the user saw; then cropped; then shrunk (never enlarged) to the width. Nothing of the
 * original's metadata survives (sharp's default: EXIF with GPS, XMP, IPTC and ICC are dropped,
 * pixels converted to sRGB), and the original's bytes are only read.
 *
 * The bytes are already read, so every failure here is the image's and answers a 422 problem;
 * reading the original and writing the cache are the caller's, and their failures stay 500s.
 */
export async function renderImage(
  input: Buffer,
  spec: RenditionSpec,
  limits: RenderLimits = defaultRenderLimits,
): Promise<Buffer> {
  try {
    // `failOn: 'error'`: a truncated or broken file is refused; the harmless warnings many cameras'
    // JPEGs produce are not. `limitInputPixels` is checked from the header, before any decoding.
    // Only the first frame of an animated GIF or WebP is read.
    let pipeline = sharp(input, {
      autoOrient: true,
      failOn: 'error',
      limitInputPixels: limits.maxPixels,
    });
    if (spec.crop) {
      const { x, y, width, height } = spec.crop;
      pipeline = pipeline.extract({ left: x, top: y, width, height });
    }
    pipeline =
      spec.width !== null
        ? pipeline.resize({ width: spec.width, withoutEnlargement: true })
        : pipeline.resize({
            width: maxWebpSide,
            height: maxWebpSide,
            fit: 'inside',
            withoutEnlargement: true,
          });
    return await pipeline.webp().timeout({ seconds: limits.timeoutSeconds }).toBuffer();
  } catch (error) {
    throw renderProblem(error, limits);
  }
}

/** sharp reports every failure as a plain Error; its message is the only thing to tell them apart. */
function renderProblem(error: unknown, limits: RenderLimits): ApiError {
  const message = error instanceof Error ? error.message : String(error);
  if (/pixel limit/i.test(message)) {
    return new ApiError(
      422,
      'image_too_large',
      `The image has more than ${Math.round(limits.maxPixels / 1e6)} megapixels; no rendition can be made of it.`,
    );
  }
  if (/timeout/i.test(message)) {
    return new ApiError(
      422,
      'image_too_complex',
      'The image took too long to process; no rendition can be made of it.',
    );
  }
  if (/extract_area|bad extract area/i.test(message)) {
    return validationFailed([{ field: 'meta.crop', message: 'lies outside the image' }]);
  }
  return new ApiError(422, 'unreadable_image', 'The image could not be read; it may be damaged.');
}
