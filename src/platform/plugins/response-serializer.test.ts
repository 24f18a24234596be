import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { problemSchema } from '../../shared/api/problem';
import { toApiAsset } from '../assets/asset-records';
import type { AssetRow } from '../db/schema';
import { problemOf } from '../http/errors';
import { serializerCompiler, serverBuilt } from './response-serializer';

const compile = (compiler: typeof serializerCompiler, schema: z.ZodType) =>
  compiler({ schema, method: 'GET', url: '/test', httpStatus: '200' });

const row: AssetRow = {
  id: 7,
  name: 'Deck "final" ✓.pdf',
  file_type: 'pitch_deck',
  assetable_type: 'Product',
  assetable_id: 3,
  blob_key: 'k3y_-abc',
  content_type: 'application/pdf',
  size: 123_456,
  sha256: 'f'.repeat(64),
  width: null,
  height: null,
  meta: JSON.stringify({ crop: { x: 1, y: 2, width: 3, height: 4 }, note: 'a\nb', list: [1, null, 'x'] }),
  private: 1,
  thumbnail_of: null,
  pending: 0,
  render_attempts: 0,
  quality: null,
  version: 3,
  created_by: 2,
  created_at: 1_700_000_000_000,
  updated_at: 1_700_000_123_456,
};

describe('serializerCompiler', () => {
  it('writes server-built assets exactly as the zod serializer does', () => {
    const fast = compile(serializerCompiler, assetEnvelopeSchema);
    const checked = compile(zodSerializerCompiler, assetEnvelopeSchema);
    const bodies = [
      { asset: toApiAsset(row, null) },
      { asset: toApiAsset(row, 99) },
      {
        asset: toApiAsset(
          { ...row, width: 640, height: 480, private: 0, meta: '{}', file_type: 'logo' },
          null,
        ),
      },
      { asset: toApiAsset({ ...row, thumbnail_of: 5 }, null) },
      // A licence photo with its measured quality (issue 31).
      {
        asset: toApiAsset(
          {
            ...row,
            file_type: 'drivers_license',
            quality: JSON.stringify({
              ok: false,
              issues: ['blurry'],
              measures: { short_side: 1584, sharpness: 16.5, luminance: 132.2, glare_share: 0 },
            }),
          },
          null,
        ),
      },
      // A thumbnail still being made: `pending`, and no size yet.
      {
        asset: toApiAsset({ ...row, thumbnail_of: 5, pending: 1, size: 0, content_type: 'image/png' }, null),
      },
    ];
    for (const body of bodies) expect(fast(body)).toBe(checked(body));
  });

  it('writes problems exactly as the zod serializer does', () => {
    const fast = compile(serializerCompiler, problemSchema);
    const checked = compile(zodSerializerCompiler, problemSchema);
    const problems = [
      problemOf({ status: 404, code: 'not_found', detail: 'No asset 7.' }),
      problemOf({
        status: 422,
        code: 'validation_failed',
        detail: 'name: must not be empty',
        errors: [{ field: 'name', message: 'must not be empty' }],
      }),
    ];
    for (const problem of problems) expect(fast(problem)).toBe(checked(problem));
  });

  it('keeps checking and stripping every other response with zod', () => {
    const schema = z.object({ a: z.number() });
    const serialize = compile(serializerCompiler, schema);
    expect(serialize({ a: 1, secret: 'x' })).toBe('{"a":1}');
    expect(() => serialize({ a: 'one' })).toThrow();
    const marked = compile(serializerCompiler, serverBuilt(z.object({ url: z.url() })));
    expect(marked({ url: 'http://127.0.0.1/x' })).toBe('{"url":"http://127.0.0.1/x"}');
  });
});
