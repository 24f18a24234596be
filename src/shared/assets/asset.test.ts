import { describe, expect, it } from 'vitest';
import {
  assetEnvelopeSchema,
  assetSchema,
  assetUpdateSchema,
  metaErrors,
  metaSchema,
  nameSchema,
} from './asset';

const nested = (levels: number): Record<string, unknown> =>
  JSON.parse(`${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`) as Record<string, unknown>;

describe('nameSchema', () => {
  it('trims names', () => {
    expect(nameSchema.parse('  Pitch deck  ')).toBe('Pitch deck');
    expect(nameSchema.parse('Résumé – Q3 (final).pdf')).toBe('Résumé – Q3 (final).pdf');
  });

  it('takes 1 to 255 characters, counted after trimming', () => {
    expect(nameSchema.safeParse('n').success).toBe(true);
    expect(nameSchema.safeParse('n'.repeat(255)).success).toBe(true);
    expect(nameSchema.safeParse(` ${'n'.repeat(255)} `).success).toBe(true);
    expect(nameSchema.safeParse('n'.repeat(256)).error?.issues[0]?.message).toBe(
      'must be at most 255 characters',
    );
    expect(nameSchema.safeParse('').error?.issues[0]?.message).toBe('must not be empty');
    expect(nameSchema.safeParse('   ').error?.issues[0]?.message).toBe('must not be empty');
  });

  it('refuses control characters, NUL and right-to-left overrides', () => {
    for (const bad of ['a\u0000b', 'line\nbreak', 'tab\there', 'bell\u0007', 'c1\u0085', 'del\u007f']) {
      expect(nameSchema.safeParse(bad).error?.issues[0]?.message, JSON.stringify(bad)).toBe(
        'must not contain control characters',
      );
    }
    // Displays as "invoiceexe.pdf".
    expect(nameSchema.safeParse('invoice\u202Efdp.exe').success).toBe(false);
    for (const bidi of ['\u200e', '\u200f', '\u202a', '\u202d', '\u2066', '\u2069', '\u061c']) {
      expect(nameSchema.safeParse(`a${bidi}b`).success, JSON.stringify(bidi)).toBe(false);
    }
  });

  it('refuses what is not a string', () => {
    expect(nameSchema.safeParse(42).success).toBe(false);
    expect(nameSchema.safeParse(null).success).toBe(false);
  });
});

describe('metaSchema and metaErrors', () => {
  it('accepts JSON objects, the empty one included', () => {
    expect(metaSchema.parse({})).toEqual({});
    const meta = { crop: { x: 1, y: 2, width: 3, height: 4 }, tags: ['a', null, true, 1.5] };
    expect(metaSchema.parse(meta)).toEqual(meta);
    expect(metaErrors(meta)).toEqual([]);
  });

  it('refuses anything but an object: arrays, strings, null', () => {
    for (const bad of [[1], [], 'text', null, 42, undefined]) {
      expect(metaSchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
      expect(metaErrors(bad)).toEqual(['must be a JSON object']);
    }
    expect(metaErrors(new Date())).toEqual(['must be a JSON object']);
  });

  it('allows 10 levels of nesting and refuses 11', () => {
    expect(metaErrors(nested(10))).toEqual([]);
    expect(metaErrors(nested(11))).toEqual(['must be at most 10 levels deep']);
    expect(metaSchema.safeParse(nested(11)).error?.issues[0]?.message).toBe('must be at most 10 levels deep');
    // Arrays are levels too.
    expect(metaErrors({ a: JSON.parse('[[[[[[[[[[1]]]]]]]]]]') as unknown })).toEqual([
      'must be at most 10 levels deep',
    ]);
  });

  it('refuses very deep and cyclic values without exhausting the stack', () => {
    expect(metaErrors(nested(100_000))).toEqual(['must be at most 10 levels deep']);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(metaErrors(cyclic)).toEqual(['must be at most 10 levels deep']);
  });

  it('allows 16 KB of JSON and refuses more', () => {
    // {"s":"…"} is 8 bytes around the string.
    expect(metaErrors({ s: 'x'.repeat(16 * 1024 - 8) })).toEqual([]);
    expect(metaErrors({ s: 'x'.repeat(16 * 1024 - 7) })).toEqual([
      'must be at most 16 KB as JSON (it is 16.1 KB)',
    ]);
    // Bytes, not characters: "é" is two bytes in UTF-8.
    expect(metaErrors({ s: 'é'.repeat(8 * 1024) })).toHaveLength(1);
    expect(metaSchema.safeParse({ big: 'x'.repeat(20_000) }).success).toBe(false);
  });

  it('refuses values JSON cannot carry', () => {
    expect(metaErrors({ n: Number.NaN })).toEqual(['meta.n is not a JSON value']);
    expect(metaErrors({ a: [1, 2n] })).toEqual(['meta.a[1] is not a JSON value']);
    expect(metaErrors({ f: () => 1 })).toEqual(['meta.f is not a JSON value']);
  });
});

describe('assetSchema', () => {
  const spec = {
    id: 7,
    name: 'Pitch deck.pdf',
    file_type: 'pitch_deck',
    assetable: { type: 'Product', id: 3 },
    key: 'opaque-key',
    meta: {},
    private: false,
    thumbifiable: true,
    thumbnail_id: '8',
  };

  it('reads the Asset of spec 2.2 inside its envelope', () => {
    expect(assetEnvelopeSchema.parse({ asset: spec }).asset).toEqual(spec);
    const { thumbnail_id: _absent, ...withoutThumbnail } = spec;
    expect(assetSchema.parse(withoutThumbnail).thumbnail_id).toBeUndefined();
  });

  it("reads our platform's additions, and works without them", () => {
    const ours = {
      ...spec,
      content_type: 'application/pdf',
      size: 1234,
      created_at: '2025-01-01T00:00:00.000Z',
    };
    expect(assetSchema.parse(ours)).toMatchObject({ content_type: 'application/pdf', size: 1234 });
  });

  it('keeps an asset of a file type the catalog does not know readable', () => {
    expect(assetSchema.parse({ ...spec, file_type: 'board_minutes' }).file_type).toBe('board_minutes');
  });

  it('refuses wrong shapes', () => {
    expect(assetSchema.safeParse({ ...spec, id: '7' }).success).toBe(false);
    expect(assetSchema.safeParse({ ...spec, id: 7.5 }).success).toBe(false);
    expect(assetSchema.safeParse({ ...spec, thumbnail_id: 8 }).success).toBe(false);
    expect(assetSchema.safeParse({ ...spec, assetable: { type: 'Company', id: 3 } }).success).toBe(false);
    expect(assetSchema.safeParse({ ...spec, private: 'false' }).success).toBe(false);
  });
});

describe('assetUpdateSchema', () => {
  it('takes any of private, name and meta under `asset`', () => {
    expect(assetUpdateSchema.parse({ asset: { private: true } })).toEqual({ asset: { private: true } });
    expect(assetUpdateSchema.parse({ asset: { name: '  New name ', meta: { crop: { x: 0 } } } })).toEqual({
      asset: { name: 'New name', meta: { crop: { x: 0 } } },
    });
  });

  it('refuses other keys, inside and outside `asset`, and the flat form', () => {
    expect(assetUpdateSchema.safeParse({ asset: { file_type: 'logo' } }).success).toBe(false);
    expect(assetUpdateSchema.safeParse({ asset: { name: 'x' }, extra: 1 }).success).toBe(false);
    expect(assetUpdateSchema.safeParse({ name: 'x' }).success).toBe(false);
  });

  it('applies the name and meta rules', () => {
    expect(assetUpdateSchema.safeParse({ asset: { name: '   ' } }).success).toBe(false);
    expect(assetUpdateSchema.safeParse({ asset: { meta: [] } }).success).toBe(false);
    expect(assetUpdateSchema.safeParse({ asset: { private: 'yes' } }).success).toBe(false);
  });
});
