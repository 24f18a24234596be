import { z } from 'zod';

const idSchema = z.number().int();
const named = z.object({ id: idSchema, name: z.string() });
const links = z.object({ assets: z.string() });

/**
 * `GET /v2/core/products` (our extension): the products the caller may read, newest first, each with
 * the id of its logo Asset (the newest one the caller may see) or null.
 */
export const productListSchema = z.object({
  products: z.array(named.extend({ logo_asset_id: idSchema.nullable() })),
  next_cursor: z.string().nullable(),
});

/** A Product read names its investments and team members, so that a client can go on to them. */
export const productSchema = named.extend({
  links,
  investments: z.array(named),
  team_members: z.array(named),
});

/** An Investment or TeamMember read names its product. */
export const productPartSchema = named.extend({ links, product: named });
