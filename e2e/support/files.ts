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

/**
 * A valid PDF of at least `megabytes`: one page, then a comment line of padding (PDF readers skip
 * comments). Large enough for the app to send it resumably where the platform offers tus.
 */
export async function largePdf(name: string, megabytes: number, text = 'Large'): Promise<TestFile> {
  const pdf = await multiPagePdf(name, [text]);
  const padding = Buffer.alloc(megabytes * 1024 * 1024, '%');
  return { ...pdf, buffer: Buffer.concat([pdf.buffer, padding, Buffer.from('\n')]) };
}

/**
 * A photo of a driver's licence or a bill as the photo check wants it (issue 31): a light card with
 * lines of fine print on a table, large enough to read. `blur` makes it the blurry photo a shaking
 * hand takes; `rotated` stores it sideways with EXIF orientation 6, as phones write portrait photos.
 * The app's own measures are not importable here: the thresholds it must cross are kept generous.
 */
export async function documentPhoto(
  name: string,
  { width = 1800, height = 1200, blur = 0, rotated = false } = {},
): Promise<TestFile> {
  let seed = 7;
  const next = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  const card = { x: width * 0.15, y: height * 0.18, w: width * 0.7, h: height * 0.64 };
  const size = Math.round(card.h * 0.03);
  const marks: string[] = [];
  for (let y = card.y + card.h * 0.25; y + size < card.y + card.h * 0.92; y += size * 1.8) {
    for (let x = card.x + card.w * 0.35; x < card.x + card.w * (0.6 + 0.35 * next());) {
      const w = size * (0.4 + 0.4 * next());
      marks.push(
        `<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${w.toFixed(1)}" height="${size}" fill="none" stroke="#1c1e28" stroke-width="${Math.max(2, size / 6).toFixed(1)}"/>`,
      );
      x += w + size * (next() < 0.2 ? 0.9 : 0.3);
    }
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
    <rect width="100%" height="100%" fill="#70604f"/>
    <rect x="${card.x}" y="${card.y}" width="${card.w}" height="${card.h}" fill="#d6dce2"/>
    <rect x="${card.x}" y="${card.y}" width="${card.w}" height="${card.h * 0.16}" fill="#284890"/>
    <rect x="${card.x + card.w * 0.04}" y="${card.y + card.h * 0.25}" width="${card.w * 0.26}" height="${card.h * 0.6}" fill="#968c82"/>
    ${marks.join('')}</svg>`;
  let image = sharp(Buffer.from(svg)).flatten();
  if (blur > 0) image = sharp(await image.blur(blur).png().toBuffer());
  if (rotated) image = sharp(await image.rotate(-90).png().toBuffer());
  const png = name.endsWith('.png');
  const encoded = png ? image.png() : image.jpeg({ quality: 88 });
  const buffer = await (rotated ? encoded.withMetadata({ orientation: 6 }) : encoded).toBuffer();
  return { name, mimeType: png ? 'image/png' : 'image/jpeg', buffer };
}
