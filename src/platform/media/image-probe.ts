import type { Readable } from 'node:stream';
import sharp, { type Metadata } from 'sharp';
import { ApiError } from '../http/errors';

export interface ImageSize {
  width: number;
  height: number;
}

/**
 * Reads an image's pixel size after EXIF orientation from its header only: a decompression bomb
 * (U6) is refused without decoding a single pixel.
 */
export async function probeImage(source: Readable, maxPixels: number): Promise<ImageSize> {
  // No pixel limit inside sharp here: metadata() reads the header only, and we apply our own limit.
  const reader = sharp({ failOn: 'error', limitInputPixels: false });
  source.pipe(reader);
  let metadata: Metadata;
  try {
    metadata = await reader.metadata();
  } catch {
    throw new ApiError(422, 'unreadable_image', 'The image could not be read; it may be damaged.');
  } finally {
    source.destroy();
  }
  const { width, height } = metadata.autoOrient ?? metadata;
  if (!width || !height) throw new ApiError(422, 'unreadable_image', 'The image has no readable size.');
  if (width * height > maxPixels) {
    throw new ApiError(
      413,
      'image_too_large',
      `The image is ${width}×${height} pixels; the limit is ${Math.round(maxPixels / 1e6)} megapixels.`,
    );
  }
  return { width, height };
}
