/// <reference lib="webworker" />
import { decodeSize, type GreyImage, measurePhoto, rgbToGrey } from '../../../../shared/assets/photo-quality';
import { orientGrey } from './orient-grey';
import type { PhotoCheckReply, PhotoCheckRequest } from './photo-checker';

type Size = { width: number; height: number };

/**
 * A JPEG decoded straight to `decodeSize` by the JPEG decoder's own n/8 scaling (WebCodecs'
 * `ImageDecoder` with a desired size): a 12 MP photo is never decoded whole, which is most of the
 * check's time on a phone. Its pixels are copied out as stored and turned upright here, by the
 * orientation the frame reports: no canvas to draw on and read back.
 */
async function decodeScaledJpeg(file: File, size: Size): Promise<GreyImage | null> {
  const decoder = new ImageDecoder({
    data: file.stream(),
    type: file.type,
    desiredWidth: size.width,
    desiredHeight: size.height,
  });
  let frame: VideoFrame | undefined;
  try {
    frame = (await decoder.decode()).image;
    const order = { RGBA: 'rgb', RGBX: 'rgb', BGRA: 'bgr', BGRX: 'bgr' } as const;
    const format = frame.format as keyof typeof order | null;
    // Another layout (planes of YUV): drawn on a canvas instead.
    if (!format || !(format in order)) return null;
    const pixels = new Uint8Array(frame.allocationSize());
    const [layout] = await frame.copyTo(pixels);
    if (layout!.stride !== frame.codedWidth * 4) return null;
    const stored = {
      data: rgbToGrey(pixels, frame.codedWidth, frame.codedHeight, 4, order[format]),
      width: frame.codedWidth,
      height: frame.codedHeight,
    };
    // Chromium reports both; TypeScript's DOM types do not have them yet.
    const { rotation = 0, flip = false } = frame as VideoFrame & { rotation?: number; flip?: boolean };
    const upright = orientGrey(stored, rotation, flip);
    // A decoder that took another scale than n/8 asked: the canvas resizes to ours.
    return upright.width === size.width && upright.height === size.height ? upright : null;
  } finally {
    frame?.close();
    decoder.close();
  }
}

/**
 * Any image the browser reads, decoded with its EXIF orientation and reduced by its resizer, drawn on
 * a canvas to read the pixels back: the way for every photo but a JPEG in a browser with
 * `ImageDecoder`.
 */
async function decodeOnCanvas(file: File, size: Size): Promise<GreyImage> {
  const image = await createImageBitmap(file, {
    imageOrientation: 'from-image',
    resizeWidth: size.width,
    resizeHeight: size.height,
    resizeQuality: 'medium',
  });
  const canvas = new OffscreenCanvas(size.width, size.height);
  const context = canvas.getContext('2d', { willReadFrequently: true });
  if (!context) throw new Error('no 2d context');
  context.drawImage(image, 0, 0, size.width, size.height);
  image.close();
  const rgba = context.getImageData(0, 0, size.width, size.height).data;
  return { data: rgbToGrey(rgba, size.width, size.height, 4), width: size.width, height: size.height };
}

const scalesWhileDecoding = (file: File) => file.type === 'image/jpeg' && typeof ImageDecoder !== 'undefined';

/**
 * The grey pixels of the photo at `decodeSize` (a 100 MP photo is never held whole), the same the
 * platform measures: a JPEG through `decodeScaledJpeg` where it can, else the canvas.
 */
async function decodeGrey(file: File, size: Size): Promise<GreyImage> {
  const decoded = scalesWhileDecoding(file) ? await decodeScaledJpeg(file, size).catch(() => null) : null;
  return decoded ?? decodeOnCanvas(file, size);
}

/**
 * The measures' loops run several times slower until V8 has optimized them, and a photo's check is
 * often the worker's first: the worker starts while the person chooses a photo
 * (`PhotoChecker.prepare`), so it runs them meanwhile on small made-up images, which is all the
 * optimizer needs to see (the second is over the analysis size, for the reduction).
 */
function warmUp() {
  for (const [width, height] of [
    [256, 256],
    [1300, 64],
  ] as const) {
    const rgba = new Uint8ClampedArray(width * height * 4);
    for (let i = 0; i < rgba.length; i++) rgba[i] = (i * 7919 + (i >> 10) * 31) % 256;
    for (let round = 0; round < 10; round++) {
      const grey = rgbToGrey(rgba, width, height, 4, round % 2 ? 'bgr' : 'rgb');
      measurePhoto({ data: grey, width, height }, { width, height });
    }
  }
}
warmUp();

/**
 * The photo check off the main thread (issue 31): the photo decoded upright at `decodeSize` (a 100 MP
 * photo is never held whole), then the measures the platform runs on the same pixels. Answers the
 * measures, or why it could not.
 */
self.onmessage = async (event: MessageEvent<PhotoCheckRequest>) => {
  const { id, file, width, height } = event.data;
  const started = performance.now();
  let reply: PhotoCheckReply;
  try {
    const grey = await decodeGrey(file, decodeSize(width, height));
    const quality = measurePhoto(grey, { width, height });
    reply = { id, kind: 'checked', quality, ms: performance.now() - started };
  } catch (error) {
    // HEIC where the browser has no decoder, a broken file: the upload goes on, the platform decides.
    reply = { id, kind: 'skipped', reason: String(error) };
  }
  self.postMessage(reply);
};
