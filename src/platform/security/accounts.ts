/**
 * The accounts people sign in with: made with a scrypt hash of their password (`npm run platform --
 * users add`, the demo seed), and found by their normalised email when they sign in.
 */
import type { Role } from '../../shared/api/me';
import type { DB } from '../db/database';
import { insertUser, userByEmail } from '../db/repositories/users';
import { hashPassword } from './passwords';

export interface NewUserInput {
  email: string;
  role: Role;
  password: string;
  name?: string;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/** Adds a user with a scrypt password hash; the name defaults to the email's local part. */
export async function createUser(db: DB, input: NewUserInput, now = Date.now()) {
  const email = normalizeEmail(input.email);
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new Error(`Not an email address: ${input.email}`);
  if (input.password.length < 8) throw new Error('The password must have at least 8 characters.');
  const name = input.name ?? email.split('@')[0]!;
  const passwordHash = await hashPassword(input.password);
  const id = await insertUser(db, { email, name, role: input.role, passwordHash, createdAt: now });
  return { id, email, name, role: input.role };
}

export const findUserByEmail = (db: DB, email: string) => userByEmail(db, normalizeEmail(email));
