import type { Role } from '../../../shared/api/me';
import type { DB } from '../database';

/** Users and what they own: every query of the users aggregate. */

export async function insertUser(
  db: DB,
  user: { email: string; name: string; role: Role; passwordHash: string; createdAt: number },
): Promise<number> {
  const { id } = await db
    .insertInto('users')
    .values({
      email: user.email,
      name: user.name,
      role: user.role,
      password_hash: user.passwordHash,
      created_at: user.createdAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

/** The user with this (normalised) email, with their password hash, for signing in. */
export function userByEmail(db: DB, email: string) {
  return db.selectFrom('users').selectAll().where('email', '=', email).executeTakeFirst();
}

export function userProfile(db: DB, id: number) {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'name', 'role'])
    .where('id', '=', id)
    .executeTakeFirst();
}

/** The entities a user owns, by kind, oldest first: team members through their product. */
export async function entitiesOwnedBy(db: DB, userId: number) {
  const [products, investments, teamMembers, accreditations, indications] = await Promise.all([
    db.selectFrom('products').select(['id', 'name']).where('owner_id', '=', userId).orderBy('id').execute(),
    db
      .selectFrom('investments')
      .select(['id', 'name'])
      .where('owner_id', '=', userId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('team_members')
      .innerJoin('products', 'products.id', 'team_members.product_id')
      .select(['team_members.id', 'team_members.name'])
      .where('products.owner_id', '=', userId)
      .orderBy('team_members.id')
      .execute(),
    db
      .selectFrom('accreditations')
      .select(['id', 'name', 'status'])
      .where('owner_id', '=', userId)
      .orderBy('id')
      .execute(),
    db
      .selectFrom('indications_of_interest')
      .select(['id', 'name'])
      .where('owner_id', '=', userId)
      .orderBy('id')
      .execute(),
  ]);
  return { products, investments, teamMembers, accreditations, indications };
}
