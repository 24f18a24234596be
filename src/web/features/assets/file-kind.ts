import { contentKinds, findFileType, type ContentKind } from '../../../shared/assets/file-types';
import type { StoredFile } from '../../lib/platform/model';

/** How the viewer shows a kind of file: drawn, as text, as a table, or described with a Download. */
export type Presentation = 'image' | 'pdf' | 'text' | 'csv' | null;

export interface FileKind {
  /** The card's short badge: "PDF", "Text", "Word". */
  badge: string;
  /** What it is, in words: "PDF document", "Word document". */
  label: string;
  shownAs: Presentation;
}

const kinds: Record<ContentKind, { badge: string; shownAs: Presentation }> = {
  jpeg: { badge: 'JPEG', shownAs: 'image' },
  png: { badge: 'PNG', shownAs: 'image' },
  webp: { badge: 'WebP', shownAs: 'image' },
  gif: { badge: 'GIF', shownAs: 'image' },
  avif: { badge: 'AVIF', shownAs: 'image' },
  pdf: { badge: 'PDF', shownAs: 'pdf' },
  docx: { badge: 'Word', shownAs: null },
  xlsx: { badge: 'Excel', shownAs: null },
  pptx: { badge: 'PowerPoint', shownAs: null },
  csv: { badge: 'CSV', shownAs: 'csv' },
  text: { badge: 'Text', shownAs: 'text' },
};

const entries = Object.entries(contentKinds) as [ContentKind, (typeof contentKinds)[ContentKind]][];

function byContentType(type: string): ContentKind | undefined {
  return entries.find(([, info]) => info.mime === type || info.otherMimes.includes(type))?.[0];
}

function byName(name: string): ContentKind | undefined {
  const lower = name.toLowerCase();
  return entries.find(([, info]) => info.extensions.some((extension) => lower.endsWith(extension)))?.[0];
}

const describe = (kind: ContentKind): FileKind => ({
  ...kinds[kind],
  label: contentKinds[kind].label.replace(/^./, (c) => c.toUpperCase()),
});

/**
 * What a file is. The type the platform sniffed from the bytes wins (`contentType`, our platform's
 * read-only `content_type`): a text file someone named `fake.pdf` is text, and is delivered as
 * `fake.txt`. Without it (a platform that implements only the spec), the name and the slot's kind say.
 */
export function kindOf(file: StoredFile): FileKind {
  const sniffed = file.contentType === undefined ? undefined : byContentType(file.contentType);
  if (sniffed) return describe(sniffed);
  if (file.contentType?.startsWith('image/'))
    return { badge: file.contentType.slice(6).toUpperCase(), label: 'Image', shownAs: 'image' };
  if (file.contentType === undefined) {
    const named = byName(file.name);
    if (named) return describe(named);
    if (findFileType(file.fileType)?.documentType === 'image')
      return { badge: 'Image', label: 'Image', shownAs: 'image' };
  }
  const extension = /\.([a-z0-9]{1,5})$/i.exec(file.name)?.[1];
  return { badge: extension?.toUpperCase() ?? 'File', label: 'File', shownAs: null };
}
