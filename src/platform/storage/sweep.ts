import type { PlatformContext } from '../context';

/**
 * At start, before any request: staging leftovers of a killed process go, and so do committed
 * files that no asset row names (a crash between writing the file and inserting its row, or
 * between deleting a row and its file). Rows are never removed here: a row is only ever inserted
 * after its file is durable, except a pending thumbnail's, whose reserved key holds nothing until
 * its PNG is made (it is made again after the start: media/pending-thumbnails.ts). A PNG committed
 * just before a crash, its row still pending, is kept here and replaced when it is made again.
 */
export async function sweepStorage(ctx: Pick<PlatformContext, 'db' | 'blobs'>) {
  const leftovers = await ctx.blobs.removeTemporaryLeftovers();
  let orphans = 0;
  for await (const key of ctx.blobs.keys()) {
    const row = await ctx.db.selectFrom('assets').select('id').where('blob_key', '=', key).executeTakeFirst();
    if (!row) {
      await ctx.blobs.delete(key);
      orphans++;
    }
  }
  return { leftovers, orphans };
}
