import { describe, expect, it } from 'vitest';
import {
  analysisSize,
  decodeSize,
  downscaleGrey,
  exposure,
  issuesOf,
  largestClippedRegion,
  measurePhoto,
  rgbToGrey,
  sharpness,
  thresholds,
  type GreyImage,
} from './photo-quality';
import { decodeForMeasures, documentPhoto, labelledName, labelledSet } from './testing/document-photos';

/** A grey image drawn pixel by pixel. */
const draw = (width: number, height: number, at: (x: number, y: number) => number): GreyImage => {
  const data = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data[y * width + x] = at(x, y);
  return { data, width, height };
};

/** Print-like marks: 2 px strokes in both directions, 8 px apart, on light paper. */
const print = (x: number, y: number) => (x % 8 < 2 || y % 8 < 2 ? 30 : 220);

/** A box blur `radius` wide along x only (a shake sideways), or along both axes. */
const boxBlur = (image: GreyImage, radius: number, both: boolean): GreyImage => {
  const along = (img: GreyImage, dx: number, dy: number) =>
    draw(img.width, img.height, (x, y) => {
      let sum = 0;
      let n = 0;
      for (let k = -radius; k <= radius; k++) {
        const sx = Math.min(img.width - 1, Math.max(0, x + k * dx));
        const sy = Math.min(img.height - 1, Math.max(0, y + k * dy));
        sum += img.data[sy * img.width + sx]!;
        n++;
      }
      return Math.round(sum / n);
    });
  const sideways = along(image, 1, 0);
  return both ? along(sideways, 0, 1) : sideways;
};

describe('the pixels the measures run on', () => {
  it('takes Rec. 601 luma of RGB and RGBA, and of BGRX as the browser’s JPEG decoder gives it', () => {
    expect([...rgbToGrey([255, 0, 0, 0, 255, 0, 0, 0, 255], 3, 1, 3)]).toEqual([76, 150, 29]);
    expect([...rgbToGrey([255, 255, 255, 0, 10, 10, 10, 255], 2, 1, 4)]).toEqual([255, 10]);
    // Red, green, blue, each stored blue first.
    expect([...rgbToGrey([0, 0, 255, 0, 0, 255, 0, 0, 255, 0, 0, 0], 3, 1, 4, 'bgr')]).toEqual([76, 150, 29]);
  });

  it('decodes at the JPEG decoder’s n/8 scale that keeps the long side ≥ 1000, or at the photo’s own size', () => {
    expect(analysisSize(4032, 3024)).toEqual({ width: 1024, height: 768 });
    // 12 MP phones: a quarter, measured as decoded (no resampling of ours).
    expect(decodeSize(4032, 3024)).toEqual({ width: 1008, height: 756 });
    expect(decodeSize(4000, 3000)).toEqual({ width: 1000, height: 750 });
    expect(analysisSize(1000, 750)).toEqual({ width: 1000, height: 750 });
    // 6/8 of 1500 is the first eighth at 1000 or more; sides round up, as libjpeg's do.
    expect(decodeSize(1500, 1000)).toEqual({ width: 1125, height: 750 });
    expect(decodeSize(1801, 1201)).toEqual({ width: 1126, height: 751 });
    // 100 MP: an eighth, then `downscaleGrey` to 1024.
    expect(decodeSize(12000, 8000)).toEqual({ width: 1500, height: 1000 });
    expect(decodeSize(800, 600)).toEqual({ width: 800, height: 600 });
  });

  it('averages areas when reducing: a flat image stays flat, halves keep their level, the mean holds', () => {
    const flat = downscaleGrey(draw(1500, 1000, () => 77));
    expect(flat.width).toBe(1024);
    expect(new Set(flat.data)).toEqual(new Set([77]));

    // Left half black, right half white, by an odd factor (1500 → 1024): only the seam is between.
    const halves = downscaleGrey(draw(1500, 1000, (x) => (x < 750 ? 0 : 255)));
    expect(halves.data[halves.width * 10 + 100]).toBe(0);
    expect(halves.data[halves.width * 10 + 1000]).toBe(255);

    const noisy = draw(2048, 1536, (x, y) => (x * 31 + y * 17) % 256);
    const mean = (img: GreyImage) => img.data.reduce((a, b) => a + b, 0) / img.data.length;
    expect(Math.abs(mean(downscaleGrey(noisy)) - mean(noisy))).toBeLessThan(0.5);
  });

  it('halves by 2 × 2 averages with halves rounded up, as the general area average does', () => {
    // Under the analysis size an image is left as it is.
    const small = draw(4, 2, (x) => [10, 11, 200, 201][x]!);
    expect(downscaleGrey(small)).toBe(small);
    const big = draw(2048, 1024, (x) => (x % 2 === 0 ? 10 : 11));
    expect(downscaleGrey(big).data[5]).toBe(11); // (10 + 11 + 10 + 11) / 4 = 10.5 → 11
  });
});

describe('sharpness', () => {
  const sharp = draw(512, 512, print);

  it('is high for crisp print and falls below the threshold once it is blurred', () => {
    expect(sharpness(sharp)).toBeGreaterThan(thresholds.minSharpness * 10);
    expect(sharpness(boxBlur(sharp, 6, true))).toBeLessThan(thresholds.minSharpness);
  });

  it('catches a shake along one direction, which leaves the other sharp', () => {
    const shaken = boxBlur(sharp, 8, false);
    expect(sharpness(shaken)).toBeLessThan(thresholds.minSharpness);
  });

  it('looks at the print, not at blank paper around it', () => {
    // Print in a tenth of the page, the rest blank: still sharp.
    const page = draw(512, 512, (x, y) => (y < 64 && x < 512 ? print(x, y) : 220));
    expect(sharpness(page)).toBeGreaterThan(thresholds.minSharpness * 10);
  });
});

describe('exposure and glare', () => {
  it('measures mean luma and the black and clipped shares', () => {
    const image = draw(100, 100, (x) => (x < 25 ? 0 : x < 50 ? 255 : 100));
    const light = exposure(image);
    expect(light.luminance).toBeCloseTo((0 + 255 + 200) / 4, 5);
    expect(light.dark_share).toBeCloseTo(0.25, 5);
    expect(light.clipped_share).toBeCloseTo(0.25, 5);
  });

  it('finds the largest connected white blob, not the sum of scattered white', () => {
    // A 30 × 30 blob and a checkerboard of white pixels over a quarter of the image.
    const image = draw(200, 200, (x, y) => {
      if (x >= 10 && x < 40 && y >= 10 && y < 40) return 255;
      if (y >= 100 && (x + y) % 2 === 0) return 255;
      return 120;
    });
    expect(largestClippedRegion(image)).toBeCloseTo(900 / 40_000, 5);
    // Diagonal neighbours are not connected: the checkerboard is 10 000 blobs of one pixel.
    expect(exposure(image).clipped_share).toBeGreaterThan(0.25);
  });

  it('names each crossed threshold, and calls all-over clipping overexposure rather than glare', () => {
    const fine = {
      short_side: 3000,
      sharpness: 2000,
      luminance: 130,
      dark_share: 0,
      clipped_share: 0,
      glare_share: 0,
    };
    expect(issuesOf(fine)).toEqual([]);
    expect(issuesOf({ ...fine, sharpness: 50, luminance: 40, short_side: 600 })).toEqual([
      'blurry',
      'dark',
      'low_resolution',
    ]);
    expect(issuesOf({ ...fine, glare_share: 0.02, clipped_share: 0.02 })).toEqual(['glare']);
    expect(issuesOf({ ...fine, glare_share: 0.6, clipped_share: 0.6 })).toEqual(['overexposed']);
  });
});

describe('the labelled set of document photos', () => {
  it.each(labelledSet.map((options) => [labelledName(options), options] as const))(
    '%s gets its label',
    async (_name, options) => {
      const photo = await documentPhoto(options);
      const { grey, original } = await decodeForMeasures(photo.jpeg);
      const quality = measurePhoto(grey, original);
      if (photo.expected === undefined) {
        expect(quality).toMatchObject({ ok: true, issues: [] });
      } else {
        expect(quality.ok).toBe(false);
        expect(quality.issues).toContain(photo.expected);
      }
    },
  );

  it('sees a photo stored sideways with its EXIF orientation as the upright one', async () => {
    const upright = await documentPhoto({ kind: 'licence', defect: 'clean' });
    const turned = await documentPhoto({ kind: 'licence', defect: 'rotated' });
    const a = await decodeForMeasures(upright.jpeg);
    const b = await decodeForMeasures(turned.jpeg);
    expect(b.original).toEqual(a.original);
    expect(b.grey.width).toBe(a.grey.width);
    const qa = measurePhoto(a.grey, a.original).measures;
    const qb = measurePhoto(b.grey, b.original).measures;
    expect(Math.abs(qb.luminance - qa.luminance)).toBeLessThan(1);
    expect(qb.sharpness / qa.sharpness).toBeGreaterThan(0.8);
  });
});
