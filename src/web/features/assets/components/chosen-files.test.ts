import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findFileType } from '../../../../shared/assets/file-types';
import type { PhotoChecker, PhotoVerdict } from '../photo-check/photo-checker';
import { sortDocuments, sortImages } from './chosen-files';

const pdf = (name: string) => new File(['%PDF-1.4'], name, { type: 'application/pdf' });
const jpeg = (name: string) => new File([new Uint8Array([0xff, 0xd8, 0xff])], name, { type: 'image/jpeg' });

describe('files chosen for a slot of documents', () => {
  it('sends those that fit, and says why the others do not', () => {
    const sorted = sortDocuments(
      [pdf('deck.pdf'), new File(['MZ'], 'setup.exe')],
      findFileType('charter_document')!,
    );
    expect(sorted.toUpload.map((f) => f.name)).toEqual(['deck.pdf']);
    expect(sorted.refusals).toEqual([expect.stringMatching(/^setup\.exe is not accepted here: upload /)]);
  });

  it('takes the first of several in a slot that holds one file, and says so', () => {
    const sorted = sortDocuments([pdf('one.pdf'), pdf('two.pdf')], findFileType('pitch_deck')!);
    expect(sorted.toUpload.map((f) => f.name)).toEqual(['one.pdf']);
    expect(sorted.refusals).toEqual(['Pitch deck holds one file, so only one.pdf is used.']);
  });
});

describe('files chosen for a slot of images', () => {
  // jsdom neither makes object URLs nor loads images: each "loads" at the size the test names, or fails.
  const sizes = new Map<string, { width: number; height: number } | null>();
  const revoked: string[] = [];
  beforeEach(() => {
    vi.stubGlobal(
      'URL',
      Object.assign(URL, {
        createObjectURL: (file: File) => `blob:${file.name}`,
        revokeObjectURL: (url: string) => void revoked.push(url),
      }),
    );
    vi.stubGlobal(
      'Image',
      class {
        naturalWidth = 0;
        naturalHeight = 0;
        onload: (() => void) | null = null;
        onerror: (() => void) | null = null;
        set src(url: string) {
          const size = sizes.get(url.slice('blob:'.length));
          if (size) Object.assign(this, { naturalWidth: size.width, naturalHeight: size.height });
          queueMicrotask(() => (size ? this.onload?.() : this.onerror?.()));
        }
      },
    );
  });
  afterEach(() => {
    vi.unstubAllGlobals();
    sizes.clear();
    revoked.length = 0;
  });
  const checked: PhotoVerdict = {
    kind: 'checked',
    ms: 5,
    quality: {
      ok: true,
      issues: [],
      measures: {
        short_side: 600,
        sharpness: 20,
        luminance: 130,
        dark_share: 0,
        clipped_share: 0,
        glare_share: 0,
      },
    },
  };
  const passes: PhotoChecker = { check: async () => checked };

  it("refuses an image the browser cannot read or one with too many pixels, in the files' order, and lets go of its URL", async () => {
    sizes.set('huge.jpg', { width: 20_000, height: 20_000 }).set('fine.jpg', { width: 800, height: 600 });
    const sorted = await sortImages(
      [jpeg('broken.jpg'), jpeg('huge.jpg'), jpeg('fine.jpg')],
      findFileType('drivers_license')!,
      passes,
    );
    expect(sorted.refusals).toEqual([
      'broken.jpg is not an image the browser can read.',
      expect.stringMatching(/^huge\.jpg is 400 megapixels; images may have at most \d+ megapixels\.$/),
    ]);
    expect(sorted.images).toEqual([
      { file: expect.objectContaining({ name: 'fine.jpg' }), url: 'blob:fine.jpg', verdict: checked },
    ]);
    expect(revoked).toEqual(['blob:broken.jpg', 'blob:huge.jpg']);
  });

  it("hands a licence photo to the browser's check, and notes one it could not check without refusing it", async () => {
    sizes.set('front.jpg', { width: 4000, height: 3000 }).set('back.heic.jpg', { width: 4000, height: 3000 });
    const asked: string[] = [];
    const checker: PhotoChecker = {
      check: async (file, size) => {
        asked.push(`${file.name} ${size.width}×${size.height}`);
        return file.name === 'front.jpg' ? checked : { kind: 'skipped', reason: 'no decoder' };
      },
    };
    const sorted = await sortImages(
      [jpeg('front.jpg'), jpeg('back.heic.jpg')],
      findFileType('drivers_license')!,
      checker,
    );
    expect(asked).toEqual(['front.jpg 4000×3000', 'back.heic.jpg 4000×3000']);
    expect(sorted.refusals).toEqual([]);
    expect(sorted.notes).toEqual([
      'back.heic.jpg could not be checked here; the platform checks it when it arrives.',
    ]);
    expect(sorted.images.map((image) => [image.file.name, image.verdict?.kind])).toEqual([
      ['front.jpg', 'checked'],
      ['back.heic.jpg', 'skipped'],
    ]);
  });
});
