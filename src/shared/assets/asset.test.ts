import { describe, expect, it } from 'vitest';
import { cropFitsImage, cropSchema, metaSchema, nameSchema } from './asset';

describe('asset rules', () => {
  it('trims names and refuses empty, long and control-character names', () => {
    expect(nameSchema.parse('  Pitch deck  ')).toBe('Pitch deck');
    for (const bad of ['', '   ', 'n'.repeat(256), 'a\u0000b', 'invoice\u202Efdp.exe']) {
      expect(nameSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
    expect(nameSchema.safeParse('n'.repeat(255)).success).toBe(true);
  });

  it('accepts meta objects up to 16 KB and 10 levels', () => {
    expect(metaSchema.safeParse({ crop: { x: 1 } }).success).toBe(true);
    expect(metaSchema.safeParse([1]).success).toBe(false);
    expect(metaSchema.safeParse('text').success).toBe(false);
    expect(metaSchema.safeParse({ big: 'x'.repeat(16 * 1024) }).success).toBe(false);
    const deep = JSON.parse(`${'{"a":'.repeat(11)}1${'}'.repeat(11)}`) as object;
    expect(metaSchema.safeParse(deep).success).toBe(false);
  });

  it('takes crops as whole, non-negative pixels inside the image', () => {
    expect(cropSchema.safeParse({ x: 0, y: 0, width: 10, height: 10 }).success).toBe(true);
    expect(cropSchema.safeParse({ x: -1, y: 0, width: 10, height: 10 }).success).toBe(false);
    expect(cropSchema.safeParse({ x: 0.5, y: 0, width: 10, height: 10 }).success).toBe(false);
    expect(cropSchema.safeParse({ x: 0, y: 0, width: 0, height: 10 }).success).toBe(false);
    expect(cropFitsImage({ x: 10, y: 10, width: 90, height: 40 }, { width: 100, height: 50 })).toBe(true);
    expect(cropFitsImage({ x: 11, y: 10, width: 90, height: 40 }, { width: 100, height: 50 })).toBe(false);
  });
});
