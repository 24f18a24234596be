import { describe, expect, it } from 'vitest';
import { specAsset } from '../../testing/platform-double';
import { readAccreditation } from './read-shapes';

describe('readAccreditation: one accreditation of the review queue', () => {
  it('reads the owner, the files it can read, the review and the ETag', () => {
    const read = readAccreditation({
      id: 5,
      name: 'Ida’s accreditation',
      owner: { name: 'Ida', email: 'ida@x.test' },
      status: 'pending',
      etag: '"a5"',
      assets: [specAsset({ id: 31, assetable: { type: 'Accreditation', id: 5 } }), { bogus: true }],
    });
    expect(read).toMatchObject({
      id: 5,
      name: 'Ida’s accreditation',
      owner: { name: 'Ida', email: 'ida@x.test' },
      review: { status: 'pending' },
      etag: '"a5"',
    });
    expect(read?.files.map((f) => f.id)).toEqual([31]);
  });

  it('names one without a name by its id, and an owner the platform left out by empty words', () => {
    expect(readAccreditation({ id: 6 })).toEqual({
      id: 6,
      name: 'Accreditation 6',
      owner: { name: '', email: '' },
      files: [],
    });
  });

  it('skips one without a numeric id', () => {
    expect(readAccreditation({ id: '6', name: 'x' })).toBeUndefined();
  });
});
