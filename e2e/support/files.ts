import sharp from 'sharp';
import { textPagesPdf } from '../../src/testing/pdf';

/**
 * Real files for the upload tests, made on the fly so the repository carries no binaries. The e2e tests
 * may not import the programs' code, so these are written here rather than shared with unit tests.
 */
export interface TestFile {
  name: string;
  mimeType: string;
  buffer: Buffer;
}

/** Four coloured quadrants: red, green / blue, yellow, so a crop's result can be told by its colours. */
export async function quadrantsPng(name = 'logo.png', width = 400, height = 300): Promise<TestFile> {
  const half = (w: number, h: number, r: number, g: number, b: number) =>
    sharp({ create: { width: w, height: h, channels: 3, background: { r, g, b } } })
      .png()
      .toBuffer();
  const w = width / 2;
  const h = height / 2;
  const buffer = await sharp({ create: { width, height, channels: 3, background: '#000' } })
    .composite([
      { input: await half(w, h, 230, 30, 30), left: 0, top: 0 },
      { input: await half(w, h, 30, 200, 60), left: w, top: 0 },
      { input: await half(w, h, 30, 60, 220), left: 0, top: h },
      { input: await half(w, h, 240, 220, 30), left: w, top: h },
    ])
    .png()
    .toBuffer();
  return { name, mimeType: 'image/png', buffer };
}

/** A JPEG stored sideways with EXIF orientation 6, as phones write portrait photos. */
export async function rotatedPhotoJpeg(name = 'photo.jpg'): Promise<TestFile> {
  const { buffer } = await quadrantsPng('x.png', 640, 480);
  const jpeg = await sharp(buffer).jpeg({ quality: 85 }).withMetadata({ orientation: 6 }).toBuffer();
  return { name, mimeType: 'image/jpeg', buffer: jpeg };
}

/**
 * A 12-megapixel camera photo as phones take them: the quadrants under sensor noise, a JPEG of
 * about 5 MB, so that what a preview costs compared with its original can be measured.
 */
export async function cameraPhotoJpeg(name = 'camera.jpg'): Promise<TestFile> {
  const { buffer: scene } = await quadrantsPng('scene.png', 4000, 3000);
  const noise = await sharp({
    create: {
      width: 4000,
      height: 3000,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  const jpeg = await sharp(scene)
    .composite([{ input: noise, blend: 'soft-light' }])
    .jpeg({ quality: 90 })
    .toBuffer();
  return { name, mimeType: 'image/jpeg', buffer: jpeg };
}

/** A PDF with one page per text, each page showing its text in large type (src/testing/pdf.ts). */
export async function multiPagePdf(name: string, pages: string[]): Promise<TestFile> {
  return { name, mimeType: 'application/pdf', buffer: await textPagesPdf(pages) };
}

export const csvFile = (name = 'figures.csv'): TestFile => ({
  name,
  mimeType: 'text/csv',
  buffer: Buffer.from('year,revenue\n2024,1000\n2025,1500\n'),
});

/** Bytes that only claim to be an image, bigger than the image limit: the app must refuse it unsent. */
export const oversizedPng = (megabytes: number, name = 'huge.png'): TestFile => ({
  name,
  mimeType: 'image/png',
  buffer: Buffer.alloc(megabytes * 1024 * 1024, 1),
});
