import type { AssetableType } from '../../shared/api/me';
import type { DB } from '../db/database';
import { entityWithOwner } from '../db/repositories/entities';
import type { Caller } from './caller';

export interface Entity {
  type: AssetableType;
  id: number;
  name: string;
  ownerId: number;
}

/** Offering material: every signed-in user may read these entities and their non-private assets. */
const publicTypes = new Set<AssetableType>(['Product', 'Investment', 'TeamMember']);

/** Finds an assetable entity and its owner (a team member is owned through its product). */
export async function findEntity(db: DB, type: AssetableType, id: number): Promise<Entity | undefined> {
  const row = await entityWithOwner(db, type, id);
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
