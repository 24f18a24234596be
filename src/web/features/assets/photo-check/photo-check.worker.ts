/// <reference lib="webworker" />
import { decodeSize, measurePhoto, rgbToGrey } from '../../../../shared/assets/photo-quality';
import type { PhotoCheckReply, PhotoCheckRequest } from './photo-checker';

/**
 * The photo check off the main thread (issue 31): decode with EXIF orientation, reduced by the
 * browser to `decodeSize` (at most 2048 px: a 100 MP photo is never held whole on a canvas), then the
 * measures the platform runs on the same pixels. Answers the measures, or why it could not.
 */
self.onmessage = async (event: MessageEvent<PhotoCheckRequest>) => {
  const { id, file, width, height } = event.data;
  const started = performance.now();
  let reply: PhotoCheckReply;
  try {
    const size = decodeSize(width, height);
    const bitmap = await createImageBitmap(file, {
      imageOrientation: 'from-image',
      resizeWidth: size.width,
      resizeHeight: size.height,
      resizeQuality: 'medium',
    });
    const canvas = new OffscreenCanvas(size.width, size.height);
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) throw new Error('no 2d context');
    context.drawImage(bitmap, 0, 0);
    bitmap.close();
    const rgba = context.getImageData(0, 0, size.width, size.height).data;
    const grey = rgbToGrey(rgba, size.width, size.height, 4);
    const quality = measurePhoto({ data: grey, width: size.width, height: size.height }, { width, height });
    reply = { id, kind: 'checked', quality, ms: performance.now() - started };
  } catch (error) {
    // HEIC where the browser has no decoder, a broken file: the upload goes on, the platform decides.
    reply = { id, kind: 'skipped', reason: String(error) };
  }
  self.postMessage(reply);
};
