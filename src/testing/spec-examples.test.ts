import { describe, expect, it } from 'vitest';
import { tokenResponseSchema } from '../proxy/token-exchange';
import { assetableTypes } from '../shared/api/assetable';
import { assetPageSchema } from '../shared/api/entity-assets';
import { oauthErrorSchema, problemSchema } from '../shared/api/problem';
import { assetEnvelopeSchema, assetSchema, assetUpdateSchema } from '../shared/assets/asset';
import {
  assetAnswer,
  assetPageAnswer,
  exampleAsset,
  exampleThumbnailedAsset,
  oauthErrorAnswer,
  problemAnswer,
  shapeOf,
  specAssetableTypes,
  specAssetOf,
  tokenAnswer,
  updatableAssetFields,
} from './spec-examples';

/**
 * The examples the three platform doubles build their answers from, held against the zod schemas
 * the programs read and write the wire with: a change on one side alone fails here.
 */
describe('the spec examples against the repository’s schemas', () => {
  it('an Asset of spec 2.2, with and without thumbnail_id, reads as the programs read it, no field dropped', () => {
    for (const asset of [exampleAsset, exampleThumbnailedAsset]) {
      expect(assetEnvelopeSchema.parse(assetAnswer(asset))).toEqual({ asset });
      // A field the schema does not know would be stripped silently by parse: none may be.
      expect(Object.keys(asset).filter((key) => !(key in assetSchema.shape))).toEqual([]);
    }
  });

  it('the update body of spec 4.6 holds exactly the attributes the platform lets change', () => {
    const update = { asset: { private: true, name: 'Logo', meta: { alt: 'Logo' } } };
    expect(Object.keys(update.asset)).toEqual([...updatableAssetFields]);
    expect(assetUpdateSchema.parse(update)).toEqual(update);
  });

  it('the assetable types of spec 2.3 are the ones the programs know', () => {
    expect([...specAssetableTypes].sort()).toEqual([...assetableTypes].sort());
  });

  it('the token answer of spec 2.1 is one the proxy accepts', () => {
    const answer = tokenAnswer('access', 'refresh');
    expect(tokenResponseSchema.parse(answer)).toEqual(answer);
  });

  it('our page of assets, problem and OAuth error read as the programs read them', () => {
    const page = assetPageAnswer([exampleAsset], 'c-1');
    expect(assetPageSchema.parse(page)).toEqual(page);
    const problem = problemAnswer(422, 'validation_failed', {
      detail: 'Name is missing.',
      errors: [{ field: 'name', message: 'must not be empty' }],
    });
    expect(problemSchema.parse(problem)).toEqual(problem);
    expect(oauthErrorSchema.parse(oauthErrorAnswer('invalid_grant', 'The code is invalid.'))).toEqual({
      error: 'invalid_grant',
      error_description: 'The code is invalid.',
    });
  });
});

describe('specAssetOf', () => {
  it('keeps spec 2.2’s fields only, with thumbifiable from the file type’s row', () => {
    const stored = { ...exampleThumbnailedAsset, thumbifiable: undefined, content_type: 'application/pdf' };
    expect(specAssetOf(stored)).toEqual(exampleThumbnailedAsset);
    const { thumbnail_id: _, ...withoutThumbnail } = stored;
    expect(Object.keys(specAssetOf(withoutThumbnail))).not.toContain('thumbnail_id');
  });
});

describe('shapeOf', () => {
  it('tells answers apart by a missing, added or retyped field, not by their values', () => {
    const shape = shapeOf(assetAnswer(exampleAsset));
    expect(shapeOf(assetAnswer({ ...exampleAsset, id: 99, name: 'other.png' }))).toEqual(shape);
    const { key: _, ...withoutKey } = exampleAsset;
    expect(shapeOf(assetAnswer(withoutKey))).not.toEqual(shape);
    expect(shapeOf(assetAnswer({ ...exampleAsset, extra: 1 }))).not.toEqual(shape);
    expect(shapeOf(assetAnswer({ ...exampleAsset, id: '11' }))).not.toEqual(shape);
    expect(shapeOf({ assets: [exampleAsset] })).toEqual({ assets: [shapeOf(exampleAsset)] });
    expect(shapeOf({ next_cursor: null })).toEqual({ next_cursor: 'null' });
  });
});
