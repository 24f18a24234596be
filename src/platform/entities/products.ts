import type { Kysely } from 'kysely';
import { productLogos } from '../db/repositories/assets';
import type { Database } from '../db/schema';
import type { Caller } from '../oauth/bearer';
import { pageOf, type Page } from '../paging';
import { canSeeAsset, entityAccess } from './entities';

export const productList = 'products';

/**
 * One page of the products the caller may read (decisions.md: offering material, every signed-in
 * user; a `basic` token only their own), newest first by id: products added while someone pages
 * land before the first page and never shift a later one. Each with the newest logo the caller may
 * see (a single-file slot's newest file is the one in use), or null.
 */
export async function readableProducts(
  db: Kysely<Database>,
  caller: Caller,
  page: { before?: number; limit: number },
): Promise<Page<{ id: number; name: string; logo_asset_id: number | null }>> {
  let query = db
    .selectFrom('products')
    .select(['id', 'name', 'owner_id'])
    .orderBy('id', 'desc')
    .limit(page.limit + 1);
  if (caller.scope === 'basic') query = query.where('owner_id', '=', caller.userId);
  if (page.before !== undefined) query = query.where('id', '<', page.before);
  const { items, nextCursor } = pageOf(await query.execute(), page.limit, productList, (row) => [row.id]);

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

/** A product's investments (with their owners, to check access) and team members, by id. */
export async function productParts(db: Kysely<Database>, productId: number) {
  const [investments, teamMembers] = await Promise.all([
    db
      .selectFrom('investments')
      .select(['id', 'name', 'owner_id'])
      .where('product_id', '=', productId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('team_members')
      .select(['id', 'name'])
      .where('product_id', '=', productId)
      .orderBy('id')
      .execute(),
  ]);
  return { investments, teamMembers };
}

/** The product an investment or team member belongs to. */
export async function productOf(db: Kysely<Database>, part: 'investments' | 'team_members', id: number) {
  return db
    .selectFrom(part)
    .innerJoin('products', 'products.id', `${part}.product_id`)
    .select(['products.id', 'products.name'])
    .where(`${part}.id`, '=', id)
    .executeTakeFirstOrThrow();
}
