/// <reference lib="webworker" />
import { decodeSize, measurePhoto, rgbToGrey } from '../../../../shared/assets/photo-quality';
import type { PhotoCheckReply, PhotoCheckRequest } from './photo-checker';

type Size = { width: number; height: number };

/**
 * A JPEG decoded straight to `decodeSize` by the JPEG decoder's own n/8 scaling (WebCodecs'
 * `ImageDecoder` with a desired size): a 12 MP photo is never decoded whole, which is most of the
 * check's time on a phone. The frame carries the EXIF orientation, which drawing it applies.
 * Undefined where the browser has no `ImageDecoder` (Safari, a page not served over HTTPS).
 */
async function decodeScaled(file: File, size: Size): Promise<CanvasImageSource & { close(): void }> {
  const decoder = new ImageDecoder({
    data: file.stream(),
    type: file.type,
    desiredWidth: size.width,
    desiredHeight: size.height,
  });
  try {
    return (await decoder.decode()).image;
  } finally {
    decoder.close();
  }
}

/** Any image the browser reads, decoded whole and then reduced by its resizer. */
const decodeWhole = (file: File, size: Size) =>
  createImageBitmap(file, {
    imageOrientation: 'from-image',
    resizeWidth: size.width,
    resizeHeight: size.height,
    resizeQuality: 'medium',
  });

const scalesWhileDecoding = (file: File) => file.type === 'image/jpeg' && typeof ImageDecoder !== 'undefined';

/**
 * The measures' loops run several times slower until V8 has optimized them, and a photo's check is
 * often the worker's first: the worker starts while the person chooses a photo
 * (`PhotoChecker.prepare`), so it runs them meanwhile on a small made-up image, which is all the
 * optimizer needs to see.
 */
function warmUp() {
  const side = 256;
  const rgba = new Uint8ClampedArray(side * side * 4);
  for (let i = 0; i < rgba.length; i++) rgba[i] = (i * 7919 + (i >> 10) * 31) % 256;
  for (let round = 0; round < 10; round++) {
    const grey = rgbToGrey(rgba, side, side, 4);
    measurePhoto({ data: grey, width: side, height: side }, { width: side, height: side });
  }
}
warmUp();

/**
 * The photo check off the main thread (issue 31): decode with EXIF orientation, reduced to
 * `decodeSize` (a 100 MP photo is never held whole on a canvas), then the measures the platform runs
 * on the same pixels. Answers the measures, or why it could not.
 */
self.onmessage = async (event: MessageEvent<PhotoCheckRequest>) => {
  const { id, file, width, height } = event.data;
  const started = performance.now();
  let reply: PhotoCheckReply;
  try {
    const size = decodeSize(width, height);
    const image = scalesWhileDecoding(file)
      ? await decodeScaled(file, size).catch(() => decodeWhole(file, size))
      : await decodeWhole(file, size);
    const canvas = new OffscreenCanvas(size.width, size.height);
    const context = canvas.getContext('2d', { willReadFrequently: true });
    if (!context) throw new Error('no 2d context');
    // At the decoded size this copies; a decoder that chose another scale is resized to ours.
    context.drawImage(image, 0, 0, size.width, size.height);
    image.close();
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
