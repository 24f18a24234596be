import type { Readable } from 'node:stream';
import type { PlatformContext } from '../context';
import type { AssetRow } from '../db/schema';
import type { BlobRange } from '../storage/blob-store';
import { renditionFor, type RenditionVariant } from './rendition-request';

/** What the delivery endpoint sends for a signed URL: the stored original or a rendition of it. */
export interface DeliveredFile {
  contentType: string;
  /** The file name for `Content-Disposition`. */
  name: string;
  size: number;
  etag: string;
  /** The bytes, or `range` of them; undefined when they are gone. */
  open(range?: BlobRange): Promise<Readable | undefined>;
  /** Releases what was held for an answer without a body (HEAD, 416). */
  close(): Promise<void>;
}

type Row = Pick<AssetRow, 'name' | 'content_type' | 'size' | 'sha256' | 'blob_key' | 'meta'>;

export function originalFile(ctx: PlatformContext, row: Row): DeliveredFile {
  return {
    contentType: row.content_type,
    name: row.name,
    size: row.size,
    etag: `"${row.sha256}"`,
    open: (range) => ctx.blobs.open(row.blob_key, range),
    close: async () => {},
  };
}

/** `logo.png` is delivered as `logo.webp`: the name should not claim a format the bytes are not. */
export const renditionFileName = (name: string) => `${name.replace(/(?<=.)\.[^.\s]{1,10}$/, '')}.webp`;

/**
 * A rendition, from the cache (rendered first if it went missing). The crop comes from the row
 * as it is now, so a link issued before a crop change shows the new crop, never the old one.
 */
export async function renditionFile(
  ctx: PlatformContext,
  row: Row,
  query: { variant: RenditionVariant; width?: number | undefined },
): Promise<DeliveredFile> {
  const spec = renditionFor(row, query)!;
  const file = await ctx.renditions.open(row, spec);
  return {
    contentType: 'image/webp',
    name: renditionFileName(row.name),
    size: file.size,
    etag: file.etag,
    open: async (range) => file.stream(range),
    close: () => file.close(),
  };
}
