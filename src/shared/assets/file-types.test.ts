import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { specFileTypes } from '../../testing/spec-examples';
import { assetableTypes } from '../api/me';
import {
  acceptFor,
  checkFileForSlot,
  checkImagePixels,
  contentKinds,
  defaultMaxFileBytes,
  fileTypeNames,
  fileTypes,
  fileTypesFor,
  findFileType,
  labelOf,
  maxBytesFor,
  maxImagePixels,
  type FileTypeName,
} from './file-types';

const MB = 1024 * 1024;
const get = (name: FileTypeName) => findFileType(name)!;

describe('file-type catalog', () => {
  it("has the spec's 19 rows with their assetable type, document type, thumbifiable value and purpose", () => {
    // Spec 2.3 as transcribed once for every test (src/testing/spec-examples.ts); where it says "not
    // shown" the catalog's choice is checked below.
    expect([...fileTypeNames]).toEqual(Object.keys(specFileTypes));
    for (const t of fileTypes) {
      const spec = specFileTypes[t.fileType]!;
      expect([t.documentType, t.thumbifiable, t.specPurpose], t.fileType).toEqual([
        spec.documentType,
        spec.thumbifiable,
        spec.purpose,
      ]);
      expect(t.assetableTypeIsOurs ? null : t.assetableType, t.fileType).toBe(spec.assetableType);
    }
  });

  it("says what each file is for in plain words, never with the spec's placeholder", () => {
    expect(get('investors_corporate_resolution').purpose).toBe(
      'When the investor invests for a company: the decision of its board or owners that approves this investment and says who may sign for the company',
    );
    for (const t of fileTypes) {
      expect(t.purpose, t.fileType).not.toMatch(/determined|^purpose:|\binterface\b/i);
      // A phrase the app writes into a sentence ("….  Accepts …"): a capital, words, no final stop.
      expect(t.purpose, t.fileType).toMatch(/^[A-Z][^_]{10,}[^.]$/);
    }
    // Jargon of the spec's texts is gone.
    expect(fileTypes.map((t) => t.purpose).join(' ')).not.toMatch(/hero|executed|graphical/i);
  });

  it("says which slots hold one file: pictures, the product's main documents and the letters", () => {
    expect(fileTypes.filter((t) => t.singleFile).map((t) => t.fileType)).toEqual([
      'avatar',
      'business_plan',
      'cover_image',
      'executed_letter_of_accreditation',
      'letter_of_accreditation',
      'logo',
      'one_page_teaser',
      'pitch_deck',
      'team_member_avatar',
    ]);
    // A licence has a front and a back; financials come by the year.
    expect(get('drivers_license').singleFile).toBe(false);
    expect(get('financial_document').singleFile).toBe(false);
  });

  it('marks the four rows whose assetable type is our decision', () => {
    expect(fileTypes.filter((t) => t.assetableTypeIsOurs).map((t) => [t.fileType, t.assetableType])).toEqual([
      ['bad_actor_certification', 'Investment'],
      ['business_plan', 'Product'],
      ['charter_document', 'Product'],
      ['executed_letter_of_accreditation', 'Accreditation'],
    ]);
  });

  it('makes identity and accreditation documents private by default, and nothing else', () => {
    expect(fileTypes.filter((t) => t.privateByDefault).map((t) => t.fileType)).toEqual([
      'drivers_license',
      'executed_letter_of_accreditation',
      'letter_of_accreditation',
      'utility_bill',
    ]);
  });

  it('gives each entity its slots, in the order of the job', () => {
    expect(fileTypesFor('Product').map((t) => t.fileType)).toEqual([
      'logo',
      'cover_image',
      'pitch_deck',
      'one_page_teaser',
      'business_plan',
      'charter_document',
    ]);
    expect(fileTypesFor('Accreditation').map((t) => t.fileType)).toEqual([
      'letter_of_accreditation',
      'executed_letter_of_accreditation',
      'drivers_license',
      'utility_bill',
    ]);
    // Every row of the catalog has its place in the order, once.
    expect(new Set(assetableTypes.flatMap((type) => fileTypesFor(type))).size).toBe(fileTypes.length);
    expect(fileTypesFor('User').map((t) => t.fileType)).toEqual(['avatar']);
    expect(fileTypesFor('TeamMember').map((t) => t.fileType)).toEqual(['team_member_avatar']);
    // Every entity of /me has at least one slot, and every row belongs to one of them.
    for (const type of assetableTypes) expect(fileTypesFor(type).length).toBeGreaterThan(0);
    expect(assetableTypes.reduce((n, type) => n + fileTypesFor(type).length, 0)).toBe(19);
  });

  it('finds rows by name and nothing else', () => {
    expect(findFileType('logo')?.label).toBe('Logo');
    expect(findFileType('svg_logo')).toBeUndefined();
    expect(findFileType('toString')).toBeUndefined();
  });

  it('names every file type for people', () => {
    expect(labelOf('drivers_license')).toBe("Driver's licence");
    expect(labelOf('one_page_teaser')).toBe('One-page teaser');
    expect(new Set(fileTypes.map((t) => t.label)).size).toBe(19);
    expect(fileTypes.every((t) => !t.label.includes('_'))).toBe(true);
    // A type from another platform still reads as words.
    expect(labelOf('board_minutes')).toBe('Board minutes');
  });

  it('can be used as a zod enum', () => {
    const schema = z.enum(fileTypeNames);
    expect(schema.parse('pitch_deck')).toBe('pitch_deck');
    expect(schema.safeParse('pitch_decks').success).toBe(false);
  });

  it('lets image slots take raster images only, and file slots documents as well', () => {
    expect(get('logo').accepts).toEqual(['jpeg', 'png', 'webp', 'gif', 'avif']);
    expect([...get('pitch_deck').accepts].sort()).toEqual(
      ['pdf', 'jpeg', 'png', 'webp', 'gif', 'avif', 'docx', 'xlsx', 'pptx', 'csv', 'text'].sort(),
    );
    for (const t of fileTypes)
      expect(t.accepts).toEqual(t.documentType === 'image' ? get('logo').accepts : get('pitch_deck').accepts);
  });

  it('describes every content kind with a MIME type, extensions and a label', () => {
    expect(contentKinds.jpeg).toMatchObject({ mime: 'image/jpeg', label: 'JPEG image' });
    expect(contentKinds.jpeg.extensions).toContain('.jpg');
    for (const kind of Object.values(contentKinds)) {
      expect(kind.mime).toMatch(/^[a-z]+\/[a-z0-9.+-]+$/);
      expect(kind.extensions.length).toBeGreaterThan(0);
      for (const extension of kind.extensions) expect(extension).toMatch(/^\.[a-z0-9]+$/);
    }
  });

  it('has crop aspects for image slots only: round squares for avatars, wide covers, free otherwise', () => {
    expect(get('avatar').cropAspect).toEqual({ ratio: 1, round: true });
    expect(get('team_member_avatar').cropAspect).toEqual({ ratio: 1, round: true });
    expect(get('cover_image').cropAspect).toEqual({ ratio: 16 / 9, round: false });
    for (const name of ['logo', 'drivers_license', 'utility_bill'] as const) {
      expect(get(name).cropAspect).toEqual({ ratio: null, round: false });
    }
    for (const t of fileTypes.filter((t) => t.documentType === 'file')) expect(t.cropAspect).toBeNull();
  });
});

describe('limits', () => {
  it('are 25 MB and 100 megapixels for images, 100 MB for other files', () => {
    expect(get('logo').maxBytes).toBe(25 * MB);
    expect(get('pitch_deck').maxBytes).toBe(100 * MB);
    expect(defaultMaxFileBytes).toBe(100 * MB);
    expect(maxImagePixels).toBe(100_000_000);
  });

  it('follow a lower limit configured on the server', () => {
    expect(maxBytesFor('pitch_deck')).toBe(100 * MB);
    expect(maxBytesFor('pitch_deck', 5 * MB)).toBe(5 * MB);
    expect(maxBytesFor('logo', 5 * MB)).toBe(5 * MB);
    // Raising the file limit does not raise the image limit.
    expect(maxBytesFor(get('logo'), 500 * MB)).toBe(25 * MB);
  });
});

describe('acceptFor', () => {
  it('lists extensions as well as MIME types, because CSV and Office files often come without one', () => {
    const accept = acceptFor('financial_document');
    expect(accept['text/csv']).toEqual(['.csv']);
    expect(accept['application/vnd.openxmlformats-officedocument.wordprocessingml.document']).toEqual([
      '.docx',
    ]);
    const extensions = Object.values(accept).flat();
    for (const extension of ['.pdf', '.csv', '.docx', '.xlsx', '.pptx', '.txt', '.jpg', '.png']) {
      expect(extensions).toContain(extension);
    }
  });

  it('never offers SVG, and offers images only to image slots', () => {
    const accept = acceptFor(get('logo'));
    expect(Object.keys(accept)).not.toContain('image/svg+xml');
    expect(Object.values(accept).flat()).not.toContain('.svg');
    expect(Object.keys(accept).every((mime) => mime.startsWith('image/'))).toBe(true);
    expect(Object.keys(acceptFor('pitch_deck'))).not.toContain('image/svg+xml');
  });
});

describe('checkFileForSlot', () => {
  it('lets fitting files through', () => {
    expect(checkFileForSlot({ name: 'logo.png', size: 1000, type: 'image/png' }, 'logo')).toBeNull();
    expect(
      checkFileForSlot({ name: 'Deck.PDF', size: 1000, type: 'application/pdf' }, 'pitch_deck'),
    ).toBeNull();
    // No MIME type (common for CSV and Office files): the extension decides.
    expect(checkFileForSlot({ name: 'numbers.csv', size: 1000, type: '' }, 'financial_document')).toBeNull();
    expect(checkFileForSlot({ name: 'plan.docx', size: 1000, type: '' }, 'business_plan')).toBeNull();
    // Windows reports CSV as an Excel MIME type.
    expect(
      checkFileForSlot(
        { name: 'numbers.csv', size: 1000, type: 'application/vnd.ms-excel' },
        'financial_document',
      ),
    ).toBeNull();
    // A camera photo from a phone has a MIME type but may have no useful name.
    expect(checkFileForSlot({ name: 'image', size: 1000, type: 'image/jpeg' }, 'utility_bill')).toBeNull();
  });

  it('says why a file of the wrong kind is refused', () => {
    expect(
      checkFileForSlot({ name: 'pitch.exe', size: 1000, type: 'application/x-msdownload' }, 'pitch_deck'),
    ).toBe('pitch.exe is not accepted here: upload a PDF, image, Office document, CSV or text file.');
    expect(checkFileForSlot({ name: 'deck.pdf', size: 1000, type: 'application/pdf' }, 'logo')).toBe(
      'deck.pdf is not accepted here: upload a JPEG, PNG, WebP, GIF or AVIF image.',
    );
    expect(
      checkFileForSlot({ name: 'page.html', size: 1000, type: 'text/html' }, 'additional_document'),
    ).toMatch(/^page\.html is not accepted here/);
    expect(checkFileForSlot({ name: 'old.xls', size: 1000, type: '' }, 'financial_document')).toMatch(
      /not accepted/,
    );
  });

  it('refuses SVG in every slot, by MIME type or by name', () => {
    const svgMessage =
      'mark.svg is not accepted here: SVG images are not supported; upload a JPEG, PNG, WebP, GIF or AVIF image.';
    expect(checkFileForSlot({ name: 'mark.svg', size: 10, type: 'image/svg+xml' }, 'logo')).toBe(svgMessage);
    expect(checkFileForSlot({ name: 'mark.svg', size: 10, type: '' }, 'logo')).toBe(svgMessage);
    expect(checkFileForSlot({ name: 'mark.png', size: 10, type: 'image/svg+xml' }, 'logo')).toMatch(/SVG/);
    expect(checkFileForSlot({ name: 'chart.svg', size: 10, type: 'image/svg+xml' }, 'pitch_deck')).toMatch(
      /^chart\.svg is not accepted here: SVG images are not supported/,
    );
  });

  it('says why a file over the limit is refused', () => {
    expect(checkFileForSlot({ name: 'photo.jpg', size: 31 * MB, type: 'image/jpeg' }, 'logo')).toBe(
      'photo.jpg is 31 MB; the limit for a logo is 25 MB.',
    );
    expect(checkFileForSlot({ name: 'photo.jpg', size: 25 * MB, type: 'image/jpeg' }, 'logo')).toBeNull();
    // Just over: never "25 MB; the limit is 25 MB".
    expect(checkFileForSlot({ name: 'photo.jpg', size: 25 * MB + 1, type: 'image/jpeg' }, 'avatar')).toBe(
      'photo.jpg is 25.1 MB; the limit for an avatar is 25 MB.',
    );
    expect(
      checkFileForSlot({ name: 'deck.pdf', size: 6 * MB, type: 'application/pdf' }, 'pitch_deck', 5 * MB),
    ).toBe('deck.pdf is 6 MB; the limit for a pitch deck is 5 MB.');
    expect(checkFileForSlot({ name: 'empty.pdf', size: 0, type: 'application/pdf' }, 'pitch_deck')).toBe(
      'empty.pdf is empty.',
    );
  });

  it('uses the right article for every label', () => {
    const limitSentence = (name: FileTypeName) =>
      checkFileForSlot({ name: 'big.png', size: 200 * MB, type: 'image/png' }, name)!.replace(
        /^.*the limit for /,
        '',
      );
    expect(limitSentence('avatar')).toBe('an avatar is 25 MB.');
    expect(limitSentence('additional_document')).toBe('an additional document is 100 MB.');
    expect(limitSentence('executed_letter_of_accreditation')).toBe(
      'an executed letter of accreditation is 100 MB.',
    );
    expect(limitSentence('intellectual_property')).toBe('an intellectual property document is 100 MB.');
    expect(limitSentence('investors_charter_document')).toBe("an investor's charter document is 100 MB.");
    expect(limitSentence('one_page_teaser')).toBe('a one-page teaser is 100 MB.');
    expect(limitSentence('utility_bill')).toBe('a utility bill is 25 MB.');
    expect(limitSentence('drivers_license')).toBe("a driver's licence is 25 MB.");
  });
});

describe('checkImagePixels', () => {
  it('allows up to 100 megapixels', () => {
    expect(checkImagePixels('scan.jpg', { width: 10_000, height: 10_000 })).toBeNull();
    expect(checkImagePixels('scan.jpg', { width: 12_000, height: 10_000 })).toBe(
      'scan.jpg is 120 megapixels; images may have at most 100 megapixels.',
    );
  });
});
