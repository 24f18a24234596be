import type { AssetableType } from '../../shared/api/me';
import type { PlatformContext } from '../context';
import type { Caller } from '../oauth/bearer';

export interface Entity {
  type: AssetableType;
  id: number;
  name: string;
  ownerId: number;
}

/** Offering material: every signed-in user may read these entities and their non-private assets. */
const publicTypes = new Set<AssetableType>(['Product', 'Investment', 'TeamMember']);

/** Finds an assetable entity and its owner (a team member is owned through its product). */
export async function findEntity(
  ctx: PlatformContext,
  type: AssetableType,
  id: number,
): Promise<Entity | undefined> {
  const { db } = ctx;
  let row: { id: number; name: string; ownerId: number } | undefined;
  switch (type) {
    case 'User':
      row = await db
        .selectFrom('users')
        .select(['id', 'name', 'id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
      break;
    case 'Product':
      row = await db
        .selectFrom('products')
        .select(['id', 'name', 'owner_id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
      break;
    case 'Investment':
      row = await db
        .selectFrom('investments')
        .select(['id', 'name', 'owner_id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
      break;
    case 'TeamMember':
      row = await db
        .selectFrom('team_members')
        .innerJoin('products', 'products.id', 'team_members.product_id')
        .select(['team_members.id', 'team_members.name', 'products.owner_id as ownerId'])
        .where('team_members.id', '=', id)
        .executeTakeFirst();
      break;
    case 'Accreditation':
      row = await db
        .selectFrom('accreditations')
        .select(['id', 'name', 'owner_id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
      break;
    case 'IndicationOfInterest':
      row = await db
        .selectFrom('indications_of_interest')
        .select(['id', 'name', 'owner_id as ownerId'])
        .where('id', '=', id)
        .executeTakeFirst();
      break;
  }
  return row && { type, ...row };
}

export type EntityAccess = 'none' | 'read' | 'write';

/**
 * What the caller may do with an entity's assets (decisions.md "who may touch an Asset"):
 * owners write; admins and, for offering material, every signed-in user read; a `basic` token
 * reads only what its user owns.
 */
export function entityAccess(caller: Caller, entity: Pick<Entity, 'type' | 'ownerId'>): EntityAccess {
  const owns = entity.ownerId === caller.userId;
  if (caller.scope === 'basic') return owns ? 'read' : 'none';
  if (owns) return 'write';
  if (caller.role === 'admin' || publicTypes.has(entity.type)) return 'read';
  return 'none';
}

/** A private asset is visible to its owner and admins only, and never through a `basic` token. */
export function canSeeAsset(
  caller: Caller,
  access: EntityAccess,
  asset: { private: number | boolean },
): boolean {
  if (access === 'none') return false;
  if (!asset.private) return true;
  return caller.scope === 'full' && (access === 'write' || caller.role === 'admin');
}
