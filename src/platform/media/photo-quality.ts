import type { Readable } from 'node:stream';
import pLimit from 'p-limit';
import sharp from 'sharp';
import { maxImagePixels } from '../../shared/assets/file-types';
import {
  decodeSize,
  type GreyImage,
  measurePhoto,
  rgbToGrey,
  type PhotoQuality,
} from '../../shared/assets/photo-quality';
import type { ImageSize } from './image-probe';

/**
 * One photo measured at a time per instance: decoding a 12 MP photo holds one of libuv's threads
 * for ~100 ms, which downloads, fsync and scrypt share (the renditions leave two free for the same
 * reason). Uploads of licences are rare; they wait for each other rather than for everyone else.
 */
const oneAtATime = pLimit(1);

/**
 * The grey pixels the measures run on, from a stored licence or bill photo: EXIF orientation applied,
 * reduced to `decodeSize` by sharp (shrink-on-load for JPEG, so a 100 MP photo is decoded at an
 * eighth, 1250 × 1250, never whole), then the shared grey conversion. `size` is the oriented size
 * the upload's probe read.
 */
export async function decodeStoredPhoto(source: Readable, size: ImageSize): Promise<GreyImage> {
  const target = decodeSize(size.width, size.height);
  const decoder = sharp({ failOn: 'error', limitInputPixels: maxImagePixels })
    .rotate()
    .resize(target.width, target.height, { fit: 'fill' })
    .toColourspace('srgb')
    .removeAlpha()
    .raw();
  source.pipe(decoder);
  try {
    const { data, info } = await decoder.toBuffer({ resolveWithObject: true });
    return {
      data: rgbToGrey(data, info.width, info.height, info.channels as 3),
      width: info.width,
      height: info.height,
    };
  } finally {
    source.destroy();
  }
}

/**
 * The quality of a stored licence or bill photo (issue 31), on the pixels the browser measures
 * (`decodeStoredPhoto`), by the shared measures.
 */
export function measureStoredPhoto(source: Readable, size: ImageSize): Promise<PhotoQuality> {
  return oneAtATime(async () => measurePhoto(await decodeStoredPhoto(source, size), size));
}
