/**
 * `meta.crop` (decisions.md): integer pixels of the original image after EXIF orientation. Plain
 * TypeScript rather than a zod schema, because the web app reads saved crops on its main page of
 * work and zod would be the largest library there (performance.md W1); the platform checks uploads
 * and updates with the same function, so the two never disagree.
 */
export interface Crop {
  x: number;
  y: number;
  width: number;
  height: number;
}

const cropKeys = ['x', 'y', 'width', 'height'] as const;

/** What is wrong with a `meta.crop` value, by key ('' for the value as a whole); empty when valid. */
export function cropProblems(value: unknown): { field: string; message: string }[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    return [{ field: '', message: 'must be an object with x, y, width and height' }];
  const problems: { field: string; message: string }[] = [];
  const record = value as Record<string, unknown>;
  for (const key of cropKeys) {
    const pixels = record[key];
    const least = key === 'width' || key === 'height' ? 1 : 0;
    if (pixels === undefined) problems.push({ field: key, message: 'is required' });
    else if (typeof pixels !== 'number' || !Number.isInteger(pixels))
      problems.push({ field: key, message: 'must be a whole number of pixels' });
    else if (pixels < least)
      problems.push({ field: key, message: least === 0 ? 'must not be negative' : 'must be at least 1' });
  }
  // Strict, so that a misspelt key ("w") is an error rather than a silent no-crop.
  for (const key of Object.keys(record))
    if (!(cropKeys as readonly string[]).includes(key))
      problems.push({ field: key, message: 'is not a crop key' });
  return problems;
}

/** Whether the crop lies inside the (EXIF-oriented) image; the platform answers 422 otherwise. */
export const cropFitsImage = (crop: Crop, image: { width: number; height: number }): boolean =>
  crop.x + crop.width <= image.width && crop.y + crop.height <= image.height;

/** The saved crop of an asset, if it has a valid one ("Edit crop" re-opens it). */
export function cropOf(meta: Record<string, unknown>): Crop | undefined {
  if (cropProblems(meta.crop).length > 0) return undefined;
  const { x, y, width, height } = meta.crop as Crop;
  return { x, y, width, height };
}
