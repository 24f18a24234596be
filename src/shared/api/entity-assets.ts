import { z } from 'zod';
import { assetSchema } from '../assets/asset';

/**
 * `GET <links.assets>?cursor=…&limit=…&file_type=…` (decisions.md's `{"assets": [...]}`, paged, with
 * `next_cursor`): the entity's assets the caller may see, newest first, thumbnails not listed. The
 * entity read sideloads the first page the same way, beside the entity, and its `links.next_assets`
 * is the address of the second page (absent when there is none).
 */
export const assetPageSchema = z.object({
  assets: z.array(assetSchema),
  next_cursor: z
    .string()
    .nullable()
    .describe('Pass as `cursor` for the page after this one; null on the last page.'),
});

export const nextAssetsLinkSchema = z
  .string()
  .optional()
  .describe('The page of assets after the ones sideloaded in this answer; absent on the last page.');
