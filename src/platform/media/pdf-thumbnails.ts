import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { Transaction } from 'kysely';
import type { PlatformContext } from '../context';
import type { AssetRow, Database } from '../db/schema';
import { PdfThumbnailError } from './pdf-thumbnail-pool';

/** A thumbnail PNG whose bytes are committed to the blob store; its row is not written yet. */
export interface StoredThumbnail {
  key: string;
  size: number;
  sha256: string;
  width: number;
  height: number;
}

/** Reads a stored file whole into a buffer of its own, so it can be handed to a worker without a copy. */
async function readWhole(ctx: PlatformContext, key: string, size: number): Promise<Uint8Array> {
  const stream = await ctx.blobs.open(key);
  if (!stream) throw new Error('the stored PDF is missing');
  const bytes = new Uint8Array(size);
  let offset = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    if (offset + chunk.length > size) {
      stream.destroy();
      throw new Error('the stored PDF is larger than its size says');
    }
    bytes.set(chunk, offset);
    offset += chunk.length;
  }
  if (offset !== size) throw new Error('the stored PDF is shorter than its size says');
  return bytes;
}

/**
 * Renders page 1 of a committed PDF into a PNG (in a worker thread) and commits the PNG to the
 * blob store. Answers null when no thumbnail can be made (encrypted, damaged, too large, too slow,
 * every worker busy): the upload goes on without one, and the reason is logged, never the file's
 * contents. The caller inserts the row, or deletes `key` if its own transaction fails.
 */
export async function makePdfThumbnail(
  ctx: PlatformContext,
  log: FastifyBaseLogger,
  pdf: { key: string; size: number },
): Promise<StoredThumbnail | null> {
  const started = performance.now();
  let rendered;
  try {
    rendered = await ctx.pdfThumbnails.render(pdf.size, () => readWhole(ctx, pdf.key, pdf.size));
  } catch (error) {
    const reason = error instanceof PdfThumbnailError ? error.reason : 'read_failed';
    const errorName = error instanceof PdfThumbnailError ? error.errorName : (error as Error | null)?.name;
    const level = reason === 'disabled' ? 'debug' : 'warn';
    log[level]({ reason, errorName, size: pdf.size }, 'PDF uploaded without a thumbnail');
    return null;
  }
  const staged = await ctx.blobs.stage(Readable.from([rendered.png]), { maxBytes: rendered.png.length });
  try {
    await staged.commit();
  } catch (error) {
    // Nothing is under the key when commit fails; without a stored PNG there is no thumbnail.
    await staged.discard();
    log.warn(
      { reason: 'storage_failed', errorName: (error as Error).name },
      'PDF uploaded without a thumbnail',
    );
    return null;
  }
  log.debug({ ms: Math.round(performance.now() - started) }, 'PDF thumbnail made');
  return {
    key: staged.key,
    size: staged.size,
    sha256: staged.sha256,
    width: rendered.width,
    height: rendered.height,
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

/**
 * The thumbnail's row, in the transaction that inserts its parent (decisions.md): its own Asset
 * with the parent's assetable, file type and privacy; `thumbnail_of` keeps it out of entity
 * listings, makes it `thumbifiable: false` and deletes it with the parent. Answers its id.
 */
export async function insertThumbnailRow(
  trx: Transaction<Database>,
  parent: AssetRow,
  thumbnail: StoredThumbnail,
): Promise<number> {
  const row = await trx
    .insertInto('assets')
    .values({
      name: thumbnailName(parent.name),
      file_type: parent.file_type,
      assetable_type: parent.assetable_type,
      assetable_id: parent.assetable_id,
      blob_key: thumbnail.key,
      content_type: 'image/png',
      size: thumbnail.size,
      sha256: thumbnail.sha256,
      width: thumbnail.width,
      height: thumbnail.height,
      meta: '{}',
      private: parent.private,
      thumbnail_of: parent.id,
      version: 1,
      created_by: parent.created_by,
      created_at: parent.created_at,
      updated_at: parent.updated_at,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}
