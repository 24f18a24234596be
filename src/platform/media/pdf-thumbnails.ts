import type { BlobRange, BlobStore } from '../storage/blob-store';
import type { PdfSource } from './pdf-thumbnail-pool';

/**
 * A stored PDF as the thumbnail pool reads it: ranges from the blob store, each read into a buffer
 * of its own (handed to the worker without a copy). `onRead` counts the bytes (the debug log says
 * how much of the file a thumbnail cost).
 */
export function blobPdfSource(
  blobs: BlobStore,
  pdf: { key: string; size: number },
  onRead: (bytes: number) => void = () => {},
): PdfSource {
  return {
    size: pdf.size,
    async read(range: BlobRange) {
      const stream = await blobs.open(pdf.key, range);
      // Deleted while its thumbnail was being made.
      if (!stream) throw new Error('the stored PDF is gone');
      const length = Math.min(range.end, pdf.size - 1) - range.start + 1;
      const bytes = new Uint8Array(Math.max(0, length));
      let offset = 0;
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        if (offset + chunk.length > bytes.length) {
          stream.destroy();
          throw new Error('the stored PDF is larger than its size says');
        }
        bytes.set(chunk, offset);
        offset += chunk.length;
      }
      if (offset !== bytes.length) throw new Error('the stored PDF is shorter than its size says');
      onRead(offset);
      return bytes;
    },
  };
}

const maxNameLength = 255;

/** "Deck.pdf" gives "Deck (thumbnail).png"; names stay within the 255 characters allowed. */
export function thumbnailName(parentName: string): string {
  const suffix = ' (thumbnail).png';
  const stem = parentName.replace(/\.pdf$/i, '') || 'document';
  let kept = stem.slice(0, maxNameLength - suffix.length);
  // Never half of a surrogate pair (an emoji cut in two is not a character).
  if (/[\uD800-\uDBFF]$/.test(kept)) kept = kept.slice(0, -1);
  return kept.trimEnd() + suffix;
}
