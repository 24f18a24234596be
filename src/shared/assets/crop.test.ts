import { describe, expect, it } from 'vitest';
import { cropFitsImage, cropOf, cropProblems } from './crop';

describe('meta.crop', () => {
  const crop = { x: 0, y: 0, width: 10, height: 10 };

  it('takes whole, non-negative pixels with a size of at least 1×1', () => {
    expect(cropProblems(crop)).toEqual([]);
    expect(cropProblems({ ...crop, width: 1, height: 1 })).toEqual([]);
    expect(cropProblems({ ...crop, x: -1 })).toEqual([{ field: 'x', message: 'must not be negative' }]);
    expect(cropProblems({ ...crop, y: 0.5 })).toEqual([
      { field: 'y', message: 'must be a whole number of pixels' },
    ]);
    expect(cropProblems({ ...crop, width: 0 })).toEqual([{ field: 'width', message: 'must be at least 1' }]);
    expect(cropProblems({ ...crop, height: -3 })).toEqual([
      { field: 'height', message: 'must be at least 1' },
    ]);
    expect(cropProblems({ ...crop, x: '0' })).toEqual([
      { field: 'x', message: 'must be a whole number of pixels' },
    ]);
    expect(cropProblems({ ...crop, x: Number.POSITIVE_INFINITY })).toHaveLength(1);
    expect(cropProblems({ ...crop, x: Number.NaN })).toHaveLength(1);
  });

  it('refuses missing and unknown keys, and anything but an object', () => {
    expect(cropProblems({ x: 0, y: 0, width: 10 })).toEqual([{ field: 'height', message: 'is required' }]);
    expect(cropProblems({ ...crop, w: 10 })).toEqual([{ field: 'w', message: 'is not a crop key' }]);
    for (const value of [null, 5, 'crop', [0, 0, 10, 10], undefined])
      expect(cropProblems(value), String(value)).toEqual([
        { field: '', message: 'must be an object with x, y, width and height' },
      ]);
  });

  it('checks that the crop lies inside the image', () => {
    const image = { width: 100, height: 50 };
    expect(cropFitsImage({ x: 0, y: 0, width: 100, height: 50 }, image)).toBe(true);
    expect(cropFitsImage({ x: 10, y: 10, width: 90, height: 40 }, image)).toBe(true);
    expect(cropFitsImage({ x: 11, y: 10, width: 90, height: 40 }, image)).toBe(false);
    expect(cropFitsImage({ x: 0, y: 1, width: 100, height: 50 }, image)).toBe(false);
  });

  it('reads the saved crop back from meta, ignoring a broken one', () => {
    expect(cropOf({ crop })).toEqual(crop);
    expect(cropOf({})).toBeUndefined();
    expect(cropOf({ crop: { ...crop, x: -1 } })).toBeUndefined();
    expect(cropOf({ crop: { ...crop, extra: 1 } })).toBeUndefined();
  });
});
