import type { Readable } from 'node:stream';
import pLimit from 'p-limit';
import sharp from 'sharp';
import { maxImagePixels } from '../../shared/assets/file-types';
import { decodeSize, measurePhoto, rgbToGrey, type PhotoQuality } from '../../shared/assets/photo-quality';
import type { ImageSize } from '../assets/image-probe';

/**
 * One photo measured at a time per instance: decoding a 12 MP photo holds one of libuv's threads
 * for ~100 ms, which downloads, fsync and scrypt share (the renditions leave two free for the same
 * reason). Uploads of licences are rare; they wait for each other rather than for everyone else.
 */
const oneAtATime = pLimit(1);

/**
 * The quality of a stored licence or bill photo (issue 31), on the pixels the browser measures:
 * EXIF orientation applied, reduced to `decodeSize` by sharp (shrink-on-load for JPEG), then the
 * shared grey conversion and measures. `size` is the oriented size the upload's probe read.
 */
export function measureStoredPhoto(source: Readable, size: ImageSize): Promise<PhotoQuality> {
  return oneAtATime(async () => {
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
      const grey = rgbToGrey(data, info.width, info.height, info.channels as 3);
      return measurePhoto({ data: grey, width: info.width, height: info.height }, size);
    } finally {
      source.destroy();
    }
  });
}
