import { type ExpressionBuilder, sql } from 'kysely';
import type { AssetableType } from '../../../shared/api/me';
import type { Database } from '../schema';

/**
 * The owner of the entity an `assets` row belongs to, as one SQL expression (null when the entity
 * does not exist): the owners of `findEntity`, for reads that fetch an asset and check access at once.
 */
export function assetableOwnerId(eb: ExpressionBuilder<Database, 'assets'>) {
  const type = 'assets.assetable_type' as const;
  const id = 'assets.assetable_id' as const;
  // The type names are written into the SQL rather than bound: six fewer parameters per read.
  const is = (name: AssetableType) => eb(type, '=', sql.lit(name));
  return eb
    .case()
    .when(is('User'))
    .then(eb.selectFrom('users').select('users.id').whereRef('users.id', '=', id))
    .when(is('Product'))
    .then(eb.selectFrom('products').select('products.owner_id').whereRef('products.id', '=', id))
    .when(is('Investment'))
    .then(eb.selectFrom('investments').select('investments.owner_id').whereRef('investments.id', '=', id))
    .when(is('TeamMember'))
    .then(
      eb
        .selectFrom('team_members')
        .innerJoin('products', 'products.id', 'team_members.product_id')
        .select('products.owner_id')
        .whereRef('team_members.id', '=', id),
    )
    .when(is('Accreditation'))
    .then(
      eb
        .selectFrom('accreditations')
        .select('accreditations.owner_id')
        .whereRef('accreditations.id', '=', id),
    )
    .when(is('IndicationOfInterest'))
    .then(
      eb
        .selectFrom('indications_of_interest')
        .select('indications_of_interest.owner_id')
        .whereRef('indications_of_interest.id', '=', id),
    )
    .end();
}
