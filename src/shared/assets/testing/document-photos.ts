import sharp from 'sharp';
import { decodeSize, rgbToGrey, type GreyImage } from '../photo-quality';

/**
 * Synthetic photos of identity documents for the photo-quality tests (issue 31): a driver's licence
 * on a table and a utility bill, with fine print, and the defects reviewers reject them for. Only
 * tests import this (it needs sharp); the measures themselves are in ../photo-quality.ts.
 */

export type DocumentKind = 'licence' | 'bill';

/** A deterministic generator (mulberry32), so every run draws the same pictures. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

type Rgb = readonly [number, number, number];

class Canvas {
  readonly pixels: Uint8Array;
  constructor(
    readonly width: number,
    readonly height: number,
    background: Rgb,
  ) {
    this.pixels = new Uint8Array(width * height * 3);
    this.fill(0, 0, width, height, background);
  }
  fill(x: number, y: number, w: number, h: number, colour: Rgb) {
    const x0 = Math.max(0, Math.round(x));
    const y0 = Math.max(0, Math.round(y));
    const x1 = Math.min(this.width, Math.round(x + w));
    const y1 = Math.min(this.height, Math.round(y + h));
    for (let row = y0; row < y1; row++) {
      for (let col = x0; col < x1; col++) {
        const p = (row * this.width + col) * 3;
        this.pixels[p] = colour[0];
        this.pixels[p + 1] = colour[1];
        this.pixels[p + 2] = colour[2];
      }
    }
  }
  /** A glyph-like mark: the outline of a box with strokes `stroke` wide, sometimes a bar across. */
  glyph(x: number, y: number, w: number, h: number, stroke: number, colour: Rgb, next: () => number) {
    this.fill(x, y, stroke, h, colour);
    if (next() < 0.6) this.fill(x + w - stroke, y, stroke, h, colour);
    if (next() < 0.7) this.fill(x, y, w, stroke, colour);
    if (next() < 0.5) this.fill(x, y + h / 2, w, stroke, colour);
    if (next() < 0.6) this.fill(x, y + h - stroke, w, stroke, colour);
  }
  /** Lines of small print in the box, glyphs `size` high. */
  print(x: number, y: number, w: number, h: number, size: number, colour: Rgb, next: () => number) {
    const stroke = Math.max(2, Math.round(size / 6));
    for (let line = y; line + size <= y + h; line += Math.round(size * 1.7)) {
      let col = x;
      const end = x + w * (0.6 + 0.4 * next());
      while (col < end) {
        const word = 2 + Math.floor(next() * 7);
        for (let i = 0; i < word && col < end; i++) {
          const gw = Math.round(size * (0.45 + 0.3 * next()));
          this.glyph(col, line, gw, size, stroke, colour, next);
          col += gw + Math.round(size * 0.25);
        }
        col += Math.round(size * 0.6);
      }
    }
  }
  /** Sensor noise of standard deviation ≈ `amount` grey levels. */
  noise(amount: number, next: () => number) {
    for (let i = 0; i < this.pixels.length; i++) {
      const n = (next() + next() + next() - 1.5) * 2 * amount;
      this.pixels[i] = Math.max(0, Math.min(255, Math.round(this.pixels[i]! + n)));
    }
  }
}

const ink: Rgb = [28, 30, 40];

function licence(width: number, height: number, next: () => number): Canvas {
  const canvas = new Canvas(width, height, [112, 96, 82]);
  const cw = width * 0.7;
  const ch = cw / 1.585; // ID-1: 85.6 × 54 mm
  const cx = (width - cw) / 2;
  const cy = (height - ch) / 2;
  const size = Math.round(ch * 0.028); // 1.5 mm print on a 54 mm card
  canvas.fill(cx, cy, cw, ch, [214, 220, 226]);
  canvas.fill(cx, cy, cw, ch * 0.16, [40, 72, 140]);
  canvas.print(cx + cw * 0.04, cy + ch * 0.04, cw * 0.6, ch * 0.09, size * 2, [235, 238, 240], next);
  canvas.fill(cx + cw * 0.04, cy + ch * 0.22, cw * 0.26, ch * 0.6, [150, 140, 130]);
  canvas.print(cx + cw * 0.34, cy + ch * 0.22, cw * 0.62, ch * 0.7, size, ink, next);
  return canvas;
}

function bill(width: number, height: number, next: () => number): Canvas {
  const canvas = new Canvas(width, height, [90, 88, 84]);
  const pw = width * 0.9;
  const ph = Math.min(height * 0.94, pw * 1.414);
  const px = (width - pw) / 2;
  const py = (height - ph) / 2;
  const size = Math.round(pw * 0.012); // 10 pt on A4
  canvas.fill(px, py, pw, ph, [228, 228, 222]);
  canvas.fill(px + pw * 0.06, py + ph * 0.04, pw * 0.2, ph * 0.06, [20, 110, 70]);
  canvas.print(px + pw * 0.6, py + ph * 0.04, pw * 0.34, ph * 0.1, size, ink, next);
  canvas.print(px + pw * 0.06, py + ph * 0.16, pw * 0.5, ph * 0.1, Math.round(size * 1.3), ink, next);
  canvas.print(px + pw * 0.06, py + ph * 0.32, pw * 0.88, ph * 0.55, size, ink, next);
  return canvas;
}

export const defects = [
  'clean',
  'gaussian_blur',
  'motion_blur',
  'dark',
  'overexposed',
  'glare',
  'low_resolution',
  'rotated',
] as const;
export type Defect = (typeof defects)[number];

export interface DocumentPhoto {
  /** "licence gaussian_blur σ6": what it is, for test names. */
  name: string;
  kind: DocumentKind;
  defect: Defect;
  /** The issue the measures must find, or none for clean and rotated photos. */
  expected: 'blurry' | 'dark' | 'overexposed' | 'glare' | 'low_resolution' | undefined;
  /** JPEG bytes. */
  jpeg: Buffer;
}

export interface PhotoOptions {
  kind: DocumentKind;
  defect: Defect;
  /** Blur σ, motion length, glare radius as a share of the short side; defaults per defect. */
  strength?: number;
  seed?: number;
  /** Long side of the photo before any defect; 2400 by default (small enough for quick tests). */
  longSide?: number;
}

const expectedIssue: Record<Defect, DocumentPhoto['expected']> = {
  clean: undefined,
  gaussian_blur: 'blurry',
  motion_blur: 'blurry',
  dark: 'dark',
  overexposed: 'overexposed',
  glare: 'glare',
  low_resolution: 'low_resolution',
  rotated: undefined,
};

/**
 * The labelled set (issue 31, point 5): synthetic licences and bills with fine print, each defect at
 * several strengths. Every photo must get its label: a recall of 1 on the set, no clean photo flagged
 * (../photo-quality.test.ts); the browser's and the platform's measures of each must agree
 * (e2e/photo-check.spec.ts). The strengths are where print stops being readable: a Gaussian σ of
 * 4 px on a 2400 px photo (the print's strokes are 5 px), a shake of 25 px; below those a reviewer
 * still reads the licence.
 */
export const labelledSet: readonly PhotoOptions[] = (['licence', 'bill'] as const).flatMap((kind) => [
  { kind, defect: 'clean', seed: 1 },
  { kind, defect: 'clean', seed: 2 },
  { kind, defect: 'clean', seed: 3 },
  { kind, defect: 'rotated' },
  ...[4, 6, 10].map((strength) => ({ kind, defect: 'gaussian_blur' as const, strength })),
  ...[25, 41].map((strength) => ({ kind, defect: 'motion_blur' as const, strength })),
  ...[0.15, 0.22, 0.3].map((strength) => ({ kind, defect: 'dark' as const, strength })),
  ...[1.6, 1.9].map((strength) => ({ kind, defect: 'overexposed' as const, strength })),
  ...[0.2, 0.3, 0.45].map((strength) => ({ kind, defect: 'glare' as const, strength })),
  ...[400, 700].map((strength) => ({ kind, defect: 'low_resolution' as const, strength })),
]);

/** "licence gaussian_blur 6", "bill clean 2": a photo of the labelled set, for test names. */
export const labelledName = (options: PhotoOptions) =>
  `${options.kind} ${options.defect} ${options.strength ?? options.seed ?? ''}`.trim();

/** A radial highlight, opaque white in its middle half, fading out to its rim. */
function glareBlob(diameter: number): Buffer {
  const r = diameter / 2;
  return Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${diameter}" height="${diameter}">` +
      `<defs><radialGradient id="g"><stop offset="0.55" stop-color="#fff" stop-opacity="1"/>` +
      `<stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs>` +
      `<circle cx="${r}" cy="${r}" r="${r}" fill="url(#g)"/></svg>`,
  );
}

/** One labelled photo: the document drawn, the defect applied, as a camera's JPEG. */
export async function documentPhoto(options: PhotoOptions): Promise<DocumentPhoto> {
  const { kind, defect, seed = 1 } = options;
  const longSide = options.longSide ?? 2400;
  const next = random(seed * 7919 + defects.indexOf(defect));
  const [width, height] =
    kind === 'licence' ? [longSide, Math.round(longSide * 0.66)] : [Math.round(longSide * 0.75), longSide];
  const canvas = kind === 'licence' ? licence(width, height, next) : bill(width, height, next);
  let image = sharp(canvas.pixels, { raw: { width, height, channels: 3 } });
  let strength = options.strength;
  const short = Math.min(width, height);

  // Optical defects happen before the sensor adds its noise; the noise is added to the raw pixels.
  if (defect === 'gaussian_blur') {
    strength ??= 6;
    image = sharp(await image.blur(strength).raw().toBuffer(), { raw: { width, height, channels: 3 } });
  }
  if (defect === 'motion_blur') {
    strength ??= 25;
    const length = Math.round(strength) | 1; // sharp takes odd kernels only
    image = sharp(
      await image
        .convolve({
          width: length,
          // sharp takes kernels at least 3 high: the line is the middle row.
          height: 3,
          kernel: [
            ...new Array<number>(length).fill(0),
            ...new Array<number>(length).fill(1 / length),
            ...new Array<number>(length).fill(0),
          ],
        })
        .raw()
        .toBuffer(),
      { raw: { width, height, channels: 3 } },
    );
  }
  const raw = new Canvas(width, height, [0, 0, 0]);
  raw.pixels.set(await image.raw().toBuffer());
  raw.noise(3, next);
  image = sharp(raw.pixels, { raw: { width, height, channels: 3 } });

  if (defect === 'dark') image = image.linear(strength ?? 0.22, 0);
  if (defect === 'overexposed') image = image.linear(strength ?? 1.9, 30);
  if (defect === 'glare') {
    strength ??= 0.3;
    const diameter = Math.round(short * strength);
    image = sharp(
      await image
        .composite([
          {
            input: glareBlob(diameter),
            left: Math.round(width * 0.55),
            top: Math.round((height - diameter) / 2),
          },
        ])
        .removeAlpha()
        .raw()
        .toBuffer(),
      { raw: { width, height, channels: 3 } },
    );
  }
  if (defect === 'low_resolution') {
    strength ??= 600;
    const { data, info } = await image
      .resize({ width: Math.round((strength * width) / short) })
      .raw()
      .toBuffer({ resolveWithObject: true });
    image = sharp(data, { raw: { width: info.width, height: info.height, channels: 3 } });
  }
  let jpeg: Buffer;
  if (defect === 'rotated') {
    // Stored turned a quarter to the left, with EXIF orientation 6 saying "turn it right to show":
    // what a phone held upright writes. The measures must see the upright picture.
    jpeg = await image.rotate(-90).jpeg({ quality: 88 }).withMetadata({ orientation: 6 }).toBuffer();
  } else {
    jpeg = await image.jpeg({ quality: 88 }).toBuffer();
  }
  const detail = strength === undefined ? '' : ` ${strength}`;
  return { name: `${kind} ${defect}${detail}`, kind, defect, expected: expectedIssue[defect], jpeg };
}

/**
 * The grey pixels the measures run on, decoded by sharp the way the platform does (EXIF orientation
 * applied, reduced to `decodeSize`), and the photo's oriented size.
 */
export async function decodeForMeasures(
  bytes: Buffer,
): Promise<{ grey: GreyImage; original: { width: number; height: number } }> {
  const meta = await sharp(bytes).metadata();
  const turned = (meta.orientation ?? 1) >= 5;
  const original = turned
    ? { width: meta.height, height: meta.width }
    : { width: meta.width, height: meta.height };
  const size = decodeSize(original.width, original.height);
  const { data, info } = await sharp(bytes)
    .rotate()
    .resize(size.width, size.height, { fit: 'fill' })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const grey = rgbToGrey(data, info.width, info.height, info.channels as 3);
  return { grey: { data: grey, width: info.width, height: info.height }, original };
}
