import { describe, expect, it } from 'vitest';
import { acceptFor, checkFileForSlot, fileTypes, fileTypesFor, findFileType } from './file-types';

describe('file-type catalog', () => {
  it("has the spec's 19 rows with their assetable, document type and thumbifiable values", () => {
    expect(fileTypes).toHaveLength(19);
    const row = (name: string) => {
      const t = findFileType(name)!;
      return [t.assetableType, t.documentType, t.thumbifiable];
    };
    expect(row('avatar')).toEqual(['User', 'image', false]);
    expect(row('pitch_deck')).toEqual(['Product', 'file', true]);
    expect(row('financial_document')).toEqual(['Investment', 'file', true]);
    expect(row('drivers_license')).toEqual(['Accreditation', 'image', false]);
    expect(row('investors_corporate_resolution')).toEqual(['IndicationOfInterest', 'file', false]);
    expect(row('team_member_avatar')).toEqual(['TeamMember', 'image', false]);
    expect(
      fileTypes
        .filter((t) => t.thumbifiable)
        .map((t) => t.fileType)
        .sort(),
    ).toEqual(
      [
        'business_plan',
        'charter_document',
        'financial_document',
        'intellectual_property',
        'one_page_teaser',
        'pitch_deck',
      ].sort(),
    );
  });

  it('marks the four rows whose assetable type is our decision', () => {
    expect(fileTypes.filter((t) => t.assetableTypeIsOurs).map((t) => [t.fileType, t.assetableType])).toEqual([
      ['bad_actor_certification', 'Investment'],
      ['business_plan', 'Product'],
      ['charter_document', 'Product'],
      ['executed_letter_of_accreditation', 'Accreditation'],
    ]);
  });

  it('makes identity and accreditation documents private by default', () => {
    expect(
      fileTypes
        .filter((t) => t.privateByDefault)
        .map((t) => t.fileType)
        .sort(),
    ).toEqual([
      'drivers_license',
      'executed_letter_of_accreditation',
      'letter_of_accreditation',
      'utility_bill',
    ]);
  });

  it('gives each entity its slots', () => {
    expect(fileTypesFor('Product').map((t) => t.fileType)).toEqual([
      'business_plan',
      'charter_document',
      'cover_image',
      'logo',
      'one_page_teaser',
      'pitch_deck',
    ]);
    expect(fileTypesFor('User').map((t) => t.fileType)).toEqual(['avatar']);
  });

  it('lists extensions as well as MIME types for the dropzone', () => {
    const accept = acceptFor(findFileType('financial_document')!);
    expect(accept['text/csv']).toEqual(['.csv']);
    expect(accept['application/vnd.openxmlformats-officedocument.wordprocessingml.document']).toEqual([
      '.docx',
    ]);
    expect(Object.keys(acceptFor(findFileType('logo')!))).not.toContain('image/svg+xml');
  });

  it('has crop aspects for image slots only: round squares for avatars, wide covers, free logos', () => {
    expect(findFileType('avatar')!.cropAspect).toEqual({ ratio: 1, round: true });
    expect(findFileType('cover_image')!.cropAspect!.ratio).toBeGreaterThan(1.5);
    expect(findFileType('logo')!.cropAspect).toEqual({ ratio: null, round: false });
    expect(findFileType('pitch_deck')!.cropAspect).toBeNull();
  });
});

describe('checkFileForSlot', () => {
  const logo = findFileType('logo')!;
  const deck = findFileType('pitch_deck')!;
  it('accepts a fitting file', () => {
    expect(checkFileForSlot({ name: 'logo.png', size: 1000, type: 'image/png' }, logo)).toBeNull();
    // CSV often comes without a MIME type: the extension decides on the client.
    expect(
      checkFileForSlot({ name: 'numbers.csv', size: 1000, type: '' }, findFileType('financial_document')!),
    ).toBeNull();
  });
  it('says why a file of the wrong kind is refused', () => {
    expect(checkFileForSlot({ name: 'deck.pdf', size: 1000, type: 'application/pdf' }, logo)).toBe(
      'deck.pdf is not accepted here: upload a JPEG, PNG, WebP, GIF or AVIF image.',
    );
    expect(checkFileForSlot({ name: 'run.exe', size: 1000, type: 'application/x-msdownload' }, deck)).toMatch(
      /^run\.exe is not accepted here/,
    );
    expect(checkFileForSlot({ name: 'x.svg', size: 10, type: 'image/svg+xml' }, logo)).toMatch(
      /not accepted/,
    );
  });
  it('says why a file over the limit is refused', () => {
    expect(checkFileForSlot({ name: 'huge.jpg', size: 31 * 1024 * 1024, type: 'image/jpeg' }, logo)).toBe(
      'huge.jpg is 31 MB; the limit for a logo is 25 MB.',
    );
    expect(
      checkFileForSlot(
        { name: 'deck.pdf', size: 6 * 1024 * 1024, type: 'application/pdf' },
        deck,
        5 * 1024 * 1024,
      ),
    ).toBe('deck.pdf is 6 MB; the limit for a pitch deck is 5 MB.');
  });
});
