/**
 * Photo quality of identity documents (issue 31): is a driver's licence or utility bill photo sharp,
 * well exposed, free of glare and large enough to read? Pure functions over grey pixels, so the
 * browser (a Web Worker, before upload) and the platform (sharp, at upload) compute the same numbers
 * on the same pixels. docs/decisions.md "Photo quality" says the same in words.
 *
 * The pipeline, identical on both sides:
 *  1. decode with EXIF orientation applied, reduced to `decodeSize` (by n/8, long side ≥ 1000) by
 *     the side's own decoder and resizer: in the browser a JPEG is reduced while it decodes
 *     (WebCodecs' `ImageDecoder`, libjpeg-turbo's n/8 scaling), other images by `createImageBitmap`;
 *     on the platform by sharp (shrink-on-load for JPEG, then libvips's reduce) — the only step
 *     that differs;
 *  2. `rgbToGrey`: Rec. 601 luma of the gamma-encoded values, here, not by a library;
 *  3. `downscaleGrey` to `analysisSize` (long side ≤ 1024) by area averaging, here, when the
 *     decoded image is larger (a 100 MP photo's eighth); a 12 MP photo is measured as decoded;
 *  4. `measurePhoto` on that grey image, with the original's short side for the resolution.
 */

/** The file types whose images are checked: photos of documents someone must read. */
export const photoCheckedFileTypes: readonly string[] = ['drivers_license', 'utility_bill'];
export const isPhotoChecked = (fileType: string): boolean => photoCheckedFileTypes.includes(fileType);

export const qualityIssues = ['blurry', 'dark', 'overexposed', 'glare', 'low_resolution'] as const;
export type QualityIssue = (typeof qualityIssues)[number];

/**
 * What was measured, snake_case as it goes on the wire (the asset's `quality.measures`). A type, not
 * an interface, so that it is a `Record<string, number>` as the asset schema reads it.
 */
export type QualityMeasures = {
  /** The original's short side in pixels, after EXIF orientation. */
  short_side: number;
  /** Laplacian variance of the sharpest tenth of the analysis image's tiles (see `sharpness`). */
  sharpness: number;
  /** Mean luma, 0–255. */
  luminance: number;
  /** Share of pixels at or below `darkLevel`. */
  dark_share: number;
  /** Share of pixels at or above `clippedLevel`. */
  clipped_share: number;
  /** The largest 4-connected region of pixels at or above `clippedLevel`, as a share of the image. */
  glare_share: number;
};

export interface PhotoQuality {
  ok: boolean;
  issues: QualityIssue[];
  measures: QualityMeasures;
}

export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

// ---------------------------------------------------------------------------------------------
// Thresholds, with their reasons. Calibrated on the generated licences and bills of
// photo-quality.test.ts (clean, Gaussian and motion blur, dark, overexposed, glare, small).

export const thresholds = {
  /**
   * Fine print (1.5 mm) on a licence needs ~8 px of height to be read; a licence that fills 60 % of
   * an 800 px short side gets ~9 px per mm. Below 800 the print of a licence or a bill is guesswork.
   */
  minShortSide: 800,
  /**
   * Sharp print on the 1024 px analysis image gives a tile variance in the thousands; a Gaussian
   * blur of σ ≥ 1.5 analysis pixels (≈ 3–6 px on the phone's original), where small print runs
   * together, falls below 150. Blank paper has no edges at all, which is why the measure takes the
   * sharpest tiles, not the whole image.
   */
  minSharpness: 100,
  /** Mean luma below 60 of 255: print on such a photo is lost in noise and JPEG blocks. */
  minLuminance: 60,
  /**
   * A third of the picture clipped white: paper in normal light stays well below 250, so this much
   * clipping means the print has washed out.
   */
  maxClippedShare: 0.25,
  /**
   * One blob of clipped white over 1.5 % of the picture: on a licence filling half the frame that is
   * ~3 % of the card, enough to cover a line of the address or the date of birth.
   */
  maxGlareShare: 0.005,
} as const;

/** Pixels at or below this are "black": shadows with nothing left to read. */
export const darkLevel = 20;
/** Pixels at or above this are clipped white: the sensor saw no detail there. */
export const clippedLevel = 250;

/** The long side of the image the measures run on. */
export const analysisLongSide = 1024;

const fit = (width: number, height: number, longSide: number): { width: number; height: number } => {
  const scale = Math.min(1, longSide / Math.max(width, height));
  return {
    width: Math.max(1, Math.round(width * scale)),
    height: Math.max(1, Math.round(height * scale)),
  };
};

/** The size of the image the measures run on: long side ≤ 1024, never enlarged. */
export const analysisSize = (width: number, height: number) => fit(width, height, analysisLongSide);

/**
 * The analysis image's least long side: the JPEG decoders' n/8 scaling lands in 1000–1024 for the
 * usual 12 MP sizes (4000 and 4032 px wide, at 1/4), so those photos need no resampling of ours.
 */
export const minAnalysisLongSide = 1000;

/**
 * The size to decode an image of this (oriented) size to: reduced by n/8, with n the smallest of
 * 1–8 that keeps the long side at `minAnalysisLongSide` or more (sides rounded up, as libjpeg
 * rounds them), or the photo's own size when it is no larger. Both sides' JPEG decoders
 * (libjpeg-turbo in Chromium and in libvips) reduce by n/8 while decoding, so a 12 MP photo is never
 * decoded whole; `downscaleGrey` then takes what is still over 1024 down to `analysisSize`.
 */
export function decodeSize(width: number, height: number): { width: number; height: number } {
  const longSide = Math.max(width, height);
  if (longSide <= minAnalysisLongSide) return { width, height };
  let eighths = 1;
  while (eighths < 8 && Math.ceil((longSide * eighths) / 8) < minAnalysisLongSide) eighths++;
  return { width: Math.ceil((width * eighths) / 8), height: Math.ceil((height * eighths) / 8) };
}

// ---------------------------------------------------------------------------------------------
// Pixels.

/**
 * Rec. 601 luma of interleaved 8-bit pixels (`channels` 3 for RGB, 4 for RGBA; alpha ignored), in
 * integer arithmetic so both sides round alike. Done here rather than by sharp's greyscale, which
 * works in linear light and would give other numbers than the browser's canvas. `order` 'bgr' reads
 * blue first: the browser's JPEG decoder hands its pixels over as BGRX.
 */
export function rgbToGrey(
  pixels: ArrayLike<number>,
  width: number,
  height: number,
  channels: 1 | 3 | 4,
  order: 'rgb' | 'bgr' = 'rgb',
): Uint8Array {
  const count = width * height;
  const grey = new Uint8Array(count);
  if (channels === 1) {
    for (let i = 0; i < count; i++) grey[i] = pixels[i]!;
    return grey;
  }
  const red = order === 'rgb' ? 0 : 2;
  const blue = 2 - red;
  for (let i = 0, p = 0; i < count; i++, p += channels) {
    // 0.299, 0.587, 0.114 in 1/1024ths; + 512 rounds.
    grey[i] = (306 * pixels[p + red]! + 601 * pixels[p + 1]! + 117 * pixels[p + blue]! + 512) >> 10;
  }
  return grey;
}

/**
 * Weights of an area-averaging resample along one axis: output pixel `o` covers source range
 * [o·s, (o+1)·s) with s = from/to; each source pixel counts by how much of it lies inside. Flat
 * arrays (`count[o]` weights from `first[o]`, at `o * span`): this runs for every pixel of a 3 MP
 * image.
 */
function areaWeights(
  from: number,
  to: number,
): { first: Int32Array; count: Int32Array; span: number; weights: Float64Array } {
  const scale = from / to;
  const span = Math.ceil(scale) + 1;
  const first = new Int32Array(to);
  const count = new Int32Array(to);
  const weights = new Float64Array(to * span);
  for (let o = 0; o < to; o++) {
    const start = o * scale;
    const end = Math.min(from, (o + 1) * scale);
    const lo = Math.floor(start);
    first[o] = lo;
    for (let k = 0; k < span && lo + k < from; k++) {
      const i = lo + k;
      const weight = Math.max(0, Math.min(end, i + 1) - Math.max(start, i)) / scale;
      weights[o * span + k] = weight;
      if (weight > 0) count[o] = k + 1;
    }
  }
  return { first, count, span, weights };
}

/** 2 × 2 blocks averaged: what the general loop below computes for a factor of 2, ten times faster. */
function halve({ data, width }: GreyImage): GreyImage {
  const outW = width / 2;
  const outH = data.length / width / 2;
  const out = new Uint8Array(outW * outH);
  for (let y = 0; y < outH; y++) {
    const top = 2 * y * width;
    const bottom = top + width;
    const target = y * outW;
    for (let x = 0; x < outW; x++) {
      const i = 2 * x;
      // + 2 then >> 2 rounds halves up, as Math.round does in the general path.
      out[target + x] =
        (data[top + i]! + data[top + i + 1]! + data[bottom + i]! + data[bottom + i + 1]! + 2) >> 2;
    }
  }
  return { data: out, width: outW, height: outH };
}

/**
 * The grey image reduced to `analysisSize` by area averaging (a box filter of fractional width),
 * columns first, then rows. An image already that small is returned as it is.
 */
export function downscaleGrey(image: GreyImage): GreyImage {
  const { width: outW, height: outH } = analysisSize(image.width, image.height);
  if (outW === image.width && outH === image.height) return image;
  const { width: inW, height: inH, data } = image;
  if (inW === outW * 2 && inH === outH * 2) return halve(image);
  const rows = areaWeights(inH, outH);
  const cols = areaWeights(inW, outW);
  // Down the columns first: each output row is a weighted sum of whole source rows, read in order
  // (a fifth faster than across first, where every output pixel gathers from scattered places).
  const down = new Float64Array(inW * outH);
  for (let y = 0; y < outH; y++) {
    const target = y * inW;
    const at = y * rows.span;
    for (let k = 0; k < rows.count[y]!; k++) {
      const weight = rows.weights[at + k]!;
      const source = (rows.first[y]! + k) * inW;
      for (let x = 0; x < inW; x++) down[target + x] = down[target + x]! + weight * data[source + x]!;
    }
  }
  const out = new Uint8Array(outW * outH);
  for (let y = 0; y < outH; y++) {
    const row = y * inW;
    const target = y * outW;
    for (let x = 0; x < outW; x++) {
      const from = row + cols.first[x]!;
      const at = x * cols.span;
      let sum = 0;
      for (let k = 0; k < cols.count[x]!; k++) sum += cols.weights[at + k]! * down[from + k]!;
      out[target + x] = Math.min(255, Math.round(sum));
    }
  }
  return { data: out, width: outW, height: outH };
}

// ---------------------------------------------------------------------------------------------
// Measures.

/** Side of the square tiles the sharpness is measured in, on the analysis image. */
const tileSide = 32;
/** The share of tiles, sharpest first, whose value is the image's: print covers at least this much. */
const sharpestShare = 0.1;

/**
 * Sharpness: the Laplacian's variance, taken per direction. The Laplacian is the sum of the second
 * derivatives across (∂²/∂x²) and down (∂²/∂y²); each tile of 32 px scores the variance of the
 * weaker of the two, and the image scores its tile at the 90th percentile.
 * - Per direction, because a plain Laplacian misses motion blur: a shake along the lines leaves the
 *   horizontal strokes sharp, and their term alone keeps the sum high (the tests prove it).
 * - Per tile, because a whole-image variance would call a sharp licence on a plain table, or a bill
 *   with wide margins, blurry: only the tiles with print in them can tell.
 */
export function sharpness(image: GreyImage): number {
  const { data, width, height } = image;
  const tilesX = Math.max(1, Math.floor((width - 2) / tileSide));
  const tilesY = Math.max(1, Math.floor((height - 2) / tileSide));
  const scores: number[] = [];
  for (let ty = 0; ty < tilesY; ty++) {
    for (let tx = 0; tx < tilesX; tx++) {
      let sumX = 0;
      let squaresX = 0;
      let sumY = 0;
      let squaresY = 0;
      let n = 0;
      const y1 = Math.min(height - 1, 1 + (ty + 1) * tileSide);
      const x1 = Math.min(width - 1, 1 + (tx + 1) * tileSide);
      for (let y = 1 + ty * tileSide; y < y1; y++) {
        const row = y * width;
        for (let x = 1 + tx * tileSide; x < x1; x++) {
          const i = row + x;
          const twice = 2 * data[i]!;
          const across = data[i - 1]! + data[i + 1]! - twice;
          const down = data[i - width]! + data[i + width]! - twice;
          sumX += across;
          squaresX += across * across;
          sumY += down;
          squaresY += down * down;
          n++;
        }
      }
      if (n > 0) scores.push(Math.min(squaresX / n - (sumX / n) ** 2, squaresY / n - (sumY / n) ** 2));
    }
  }
  if (scores.length === 0) return 0;
  scores.sort((a, b) => b - a);
  return scores[Math.min(scores.length - 1, Math.floor(scores.length * sharpestShare))]!;
}

/** Mean luma and the shares of black and of clipped white pixels. */
export function exposure(image: GreyImage): { luminance: number; dark_share: number; clipped_share: number } {
  const { data } = image;
  let sum = 0;
  let dark = 0;
  let clipped = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    sum += v;
    if (v <= darkLevel) dark++;
    if (v >= clippedLevel) clipped++;
  }
  const n = Math.max(1, data.length);
  return { luminance: sum / n, dark_share: dark / n, clipped_share: clipped / n };
}

/**
 * The largest 4-connected region of clipped white, as a share of the image: a reflection is one
 * bright blob, where clipping spread over the picture is exposure. A flood fill with an explicit
 * stack (no recursion: a blob can be a million pixels).
 */
export function largestClippedRegion(image: GreyImage): number {
  const { data, width } = image;
  const count = data.length;
  const seen = new Uint8Array(count);
  const stack = new Int32Array(count);
  let largest = 0;
  for (let start = 0; start < count; start++) {
    if (seen[start] || data[start]! < clippedLevel) continue;
    let top = 0;
    let size = 0;
    stack[top++] = start;
    seen[start] = 1;
    while (top > 0) {
      const i = stack[--top]!;
      size++;
      const x = i % width;
      // Inline rather than a helper: this loop runs once per clipped pixel, a million on a white photo.
      if (x > 0 && !seen[i - 1] && data[i - 1]! >= clippedLevel) {
        seen[i - 1] = 1;
        stack[top++] = i - 1;
      }
      if (x < width - 1 && !seen[i + 1] && data[i + 1]! >= clippedLevel) {
        seen[i + 1] = 1;
        stack[top++] = i + 1;
      }
      if (i >= width && !seen[i - width] && data[i - width]! >= clippedLevel) {
        seen[i - width] = 1;
        stack[top++] = i - width;
      }
      if (i + width < count && !seen[i + width] && data[i + width]! >= clippedLevel) {
        seen[i + width] = 1;
        stack[top++] = i + width;
      }
    }
    if (size > largest) largest = size;
  }
  return largest / Math.max(1, count);
}

/** Which thresholds the measures cross, in the order of `qualityIssues`. */
export function issuesOf(measures: QualityMeasures): QualityIssue[] {
  const issues: QualityIssue[] = [];
  if (measures.sharpness < thresholds.minSharpness) issues.push('blurry');
  if (measures.luminance < thresholds.minLuminance) issues.push('dark');
  // Clipping all over is one large "blob" too; then the advice is about the light, not a reflection.
  const overexposed = measures.clipped_share > thresholds.maxClippedShare;
  if (overexposed) issues.push('overexposed');
  if (!overexposed && measures.glare_share > thresholds.maxGlareShare) issues.push('glare');
  if (measures.short_side < thresholds.minShortSide) issues.push('low_resolution');
  return issues;
}

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/**
 * The quality of a photo: `grey` is the decoded image (step 1–2 above, any size; it is reduced to
 * the analysis size here), `original` the photo's own size after EXIF orientation.
 */
export function measurePhoto(grey: GreyImage, original: { width: number; height: number }): PhotoQuality {
  const image = downscaleGrey(grey);
  const light = exposure(image);
  const measures: QualityMeasures = {
    short_side: Math.min(original.width, original.height),
    sharpness: round(sharpness(image), 1),
    luminance: round(light.luminance, 1),
    dark_share: round(light.dark_share, 4),
    clipped_share: round(light.clipped_share, 4),
    glare_share: round(largestClippedRegion(image), 4),
  };
  const issues = issuesOf(measures);
  return { ok: issues.length === 0, issues, measures };
}
