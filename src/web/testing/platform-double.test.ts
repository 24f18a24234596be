import { describe, expect, it } from 'vitest';
import { accreditationSchema } from '../../shared/api/accreditations';
import { problemSchema } from '../../shared/api/problem';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { assetAnswer, exampleAsset, problemAnswer, shapeOf, specAssetOf } from '../../testing/spec-examples';
import { ApiError } from '../lib/platform/errors';
import {
  accreditationAsset,
  assetListAnswers,
  downloadUrlAnswer,
  entityAnswers,
  http,
  HttpResponse,
  ourAccreditation,
  platformDouble,
  platformFor,
  platformUrl,
  problemResponse,
  specAsset,
  testConfig,
} from './platform-double';

/**
 * The MSW double against the spec examples every platform double shares (src/testing/spec-examples.ts):
 * its builders answer the spec's example requests in the examples' shapes, and the app's adapter
 * reads them as it reads a platform. A change to the examples or to the double alone fails here.
 */
const server = platformDouble();
const api = (path: string) => `${platformUrl}${path}`;
const product = { type: 'Product', id: 7 } as const;
const read = () => platformFor(testConfig()).platform;

describe("conformance: the MSW double answers the spec's example requests in the shared shapes", () => {
  it('an Asset (4.4) is the example of spec 2.2, and the app reads its values', async () => {
    expect(shapeOf(specAsset())).toEqual(shapeOf(exampleAsset));
    server.use(http.get(api('/v2/core/assets/11'), () => HttpResponse.json(assetAnswer(specAsset()))));
    expect(await read().file(11)).toMatchObject({
      id: exampleAsset.id,
      name: exampleAsset.name,
      fileType: exampleAsset.file_type,
      entity: exampleAsset.assetable,
      private: exampleAsset.private,
    });
  });

  it('a download URL (4.5) is read from the example answer', async () => {
    server.use(
      http.get(api('/v2/core/assets/11/download_url'), () =>
        HttpResponse.json(downloadUrlAnswer('https://files.test/logo.png')),
      ),
    );
    expect((await read().address(11)).url).toBe('https://files.test/logo.png');
  });

  it.each([
    ['sideloaded', entityAnswers.sideloaded('product', { id: 7, name: 'Solar' }, [specAsset()])],
    ['top-level', entityAnswers.topLevel('product', { id: 7, name: 'Solar' }, [specAsset()])],
  ] as const)(
    'an entity read with its assets %s (spec 4, not shown) gives the example Asset',
    async (_, body) => {
      server.use(http.get(api('/v2/core/products/7'), () => HttpResponse.json(body)));
      const answer = await read().entityFiles(product);
      expect([answer.name, answer.files?.map((file) => file.name)]).toEqual(['Solar', [exampleAsset.name]]);
    },
  );

  it.each(['envelope', 'array'] as const)(
    'an entity that only links its assets, listed as %s (not shown), gives the example Asset',
    async (listShape) => {
      server.use(
        http.get(api('/v2/core/products/7'), () =>
          HttpResponse.json(entityAnswers.linksOnly('product', { id: 7 }, '/v2/core/products/7/assets')),
        ),
        http.get(api('/v2/core/products/7/assets'), () =>
          HttpResponse.json(assetListAnswers[listShape]([specAsset()])),
        ),
      );
      expect((await read().entityFiles(product)).files?.map((file) => file.id)).toEqual([exampleAsset.id]);
    },
  );

  it("a problem is our platform's, with its code and detail for the app", async () => {
    const response = problemResponse(409, 'retained', { detail: 'Kept as evidence.' });
    expect(response.headers.get('content-type')).toBe('application/problem+json');
    const body: unknown = await response.clone().json();
    expect(problemSchema.parse(body)).toEqual(
      problemAnswer(409, 'retained', { detail: 'Kept as evidence.' }),
    );
    expect(await ApiError.fromResponse(response)).toMatchObject({
      code: 'retained',
      message: 'Kept as evidence.',
    });
  });

  it('our accreditation and its assets read as the platform writes them', () => {
    expect(accreditationSchema.parse(ourAccreditation())).toEqual(ourAccreditation());
    const asset = accreditationAsset({ id: 4 });
    expect(assetEnvelopeSchema.parse(assetAnswer(asset)).asset).toEqual(asset);
    expect(shapeOf(specAssetOf(asset))).toEqual(shapeOf(exampleAsset));
  });
});
