import type { DB } from '../db/database';
import { productLogos } from '../db/repositories/assets';
import { productPage } from '../db/repositories/entities';
import type { Caller } from '../access/caller';
import { pageOf, type Page } from '../http/paging';
import { canSeeAsset, entityAccess } from '../access/entity-access';

export const productList = 'products';

/**
 * One page of the products the caller may read (decisions.md: offering material, every signed-in
 * user; a `basic` token only their own), newest first by id: products added while someone pages
 * land before the first page and never shift a later one. Each with the newest logo the caller may
 * see (a single-file slot's newest file is the one in use), or null.
 */
export async function readableProducts(
  db: DB,
  caller: Caller,
  page: { before?: number; limit: number },
): Promise<Page<{ id: number; name: string; logo_asset_id: number | null }>> {
  const ownerId = caller.scope === 'basic' ? caller.userId : undefined;
  const rows = await productPage(db, { ownerId, ...page });
  const { items, nextCursor } = pageOf(rows, page.limit, productList, (row) => [row.id]);

  const logos = await productLogos(
    db,
    items.map((p) => p.id),
  );
  return {
    nextCursor,
    items: items.map((product) => {
      // The same rules as every other read of an asset, not a second copy of them in SQL.
      const access = entityAccess(caller, { type: 'Product', ownerId: product.owner_id });
      const logo = logos.find((l) => l.assetable_id === product.id && canSeeAsset(caller, access, l));
      return { id: product.id, name: product.name, logo_asset_id: logo?.id ?? null };
    }),
  };
}
