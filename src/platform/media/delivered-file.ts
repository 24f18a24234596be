import type { Readable } from 'node:stream';
import { contentKinds } from '../../shared/assets/file-types';
import type { AssetRow } from '../db/schema';
import type { BlobRange, BlobStore, PresignedHeaders } from '../storage/blob-store';
import type { Renditions } from './renditions';
import { renditionName, type RenditionSpec } from './rendition-request';

/** What the delivery endpoint sends for a signed URL: the stored original or a rendition of it. */
export interface DeliveredFile {
  contentType: string;
  /** The file name for `Content-Disposition`, its extension the one of `contentType`. */
  name: string;
  /** Known before anything is opened, so that a 304 costs no file access. */
  etag: string;
  /** The bytes' size, then the bytes; a rendition missing from the cache is rendered first. */
  open(): Promise<OpenedFile>;
  /**
   * A short-lived URL of the bucket answering the bytes with `headers` (S3_DELIVERY=redirect); a
   * rendition missing from the cache is rendered first. Undefined where the store has no URLs.
   */
  presignedUrl(headers: PresignedHeaders): Promise<string | undefined>;
}

export interface OpenedFile {
  size: number;
  /** The bytes, or `range` of them; undefined when they are gone. */
  stream(range?: BlobRange): Promise<Readable | undefined>;
  /** Releases what was held for an answer without a body (HEAD, 416). */
  close(): Promise<void>;
}

type Row = Pick<AssetRow, 'name' | 'content_type' | 'size' | 'sha256' | 'blob_key' | 'meta'>;

const extensionsOf = new Map<string, readonly string[]>(
  Object.values(contentKinds).map((kind) => [kind.mime, kind.extensions]),
);
/** A trailing extension: a dot (not the first character), then up to 10 characters with a letter. */
const trailingExtension = /(?<=.)\.(?=[^.\s]*[a-z])[^.\s]{1,10}$/i;

/** Where a delivered file's bytes come from: the blob store, or the rendition cache. */
interface FileSources {
  blobs: BlobStore;
  renditions: Renditions;
}

/**
 * The name a file is delivered under (H1): its extension is one of the sniffed type's, replacing
 * another extension or appended, so that `numbers.html` holding text is saved as `numbers.txt` and
 * never opens as a page. The stored name stays as the owner gave it.
 */
export function deliveredName(name: string, contentType: string): string {
  // Every stored type is in the catalog; anything else would only be sent as opaque bytes.
  const extensions = extensionsOf.get(contentType) ?? ['.bin'];
  const lower = name.toLowerCase();
  if (extensions.some((extension) => lower.endsWith(extension))) return name;
  return `${name.replace(trailingExtension, '')}${extensions[0]}`;
}

export function originalFile(ctx: FileSources, row: Row): DeliveredFile {
  return {
    contentType: row.content_type,
    name: deliveredName(row.name, row.content_type),
    etag: `"${row.sha256}"`,
    open: async () => ({
      size: row.size,
      stream: (range) => ctx.blobs.open(row.blob_key, range),
      close: async () => {},
    }),
    presignedUrl: async (headers) => ctx.blobs.presignedUrl?.(row.blob_key, headers),
  };
}

/** A rendition (WebP), from the cache, or rendered first if it is not (yet, or any more) cached. */
export function renditionFile(ctx: FileSources, row: Row, spec: RenditionSpec): DeliveredFile {
  const contentType = 'image/webp';
  return {
    contentType,
    name: deliveredName(row.name, contentType),
    // Same original bytes and same name (variant, crop, width) mean the same rendition.
    etag: `"${row.sha256}.${renditionName(spec)}"`,
    open: async () => {
      const file = await ctx.renditions.open(row, spec);
      return { size: file.size, stream: (range) => file.stream(range), close: () => file.close() };
    },
    presignedUrl: (headers) => ctx.renditions.presignedUrl(row, spec, headers),
  };
}
