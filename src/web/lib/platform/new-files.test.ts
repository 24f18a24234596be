import { describe, expect, it } from 'vitest';
import { specAsset } from '../../testing/platform-double';
import { ApiError } from './errors';
import { storedFileOf } from './new-files';

describe('storedFileOf: the file a create made, from the platform’s answer', () => {
  it('reads the asset, with the ETag the answer carried', async () => {
    const file = await storedFileOf({
      status: 201,
      body: JSON.stringify(specAsset({ id: 21 })),
      etag: '"v1"',
    });
    expect(file).toMatchObject({ id: 21, name: 'logo.png', fileType: 'logo', etag: '"v1"' });
  });

  it('rejects a refusal with the platform’s own words', async () => {
    const refusal = {
      type: 'about:blank',
      title: 'Too large',
      status: 413,
      code: 'file_too_large',
      detail: 'At most 25 MB.',
    };
    const error = await storedFileOf({ status: 413, body: JSON.stringify(refusal) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 413, code: 'file_too_large', message: 'At most 25 MB.' });
  });

  it('says the file did arrive when a success carries no asset it can read', async () => {
    for (const body of ['', 'not json', JSON.stringify({ ok: true })])
      await expect(storedFileOf({ status: 201, body })).rejects.toThrow(
        'The file was sent, but the platform’s answer could not be read. Reload the page to see it.',
      );
  });
});
