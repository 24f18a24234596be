import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { platformDataDir } from './urls';

/** The demo accounts' password, and every test user's. */
export const demoPassword = 'demo-password';

/** A product a test's issuer owns, with the investment and team member it comes with. */
export interface OwnProduct {
  id: number;
  name: string;
  investment: { id: number };
  team_member: { id: number };
}

/** A person `addUser` made: an investor's accreditation, an issuer's products. */
export interface AddedUser {
  /** Their User entity's id (`/users/:id`). */
  id: number;
  email: string;
  password: string;
  name: string;
  accreditation?: { id: number; name: string };
  products: OwnProduct[];
}

/**
 * Adds a user to the running platform with its own admin command, as an operator would. An issuer
 * gets `products` (names), each with one investment and one team member.
 */
export function addUser(
  role: 'investor' | 'issuer' | 'admin',
  name?: string,
  { products = [] }: { products?: string[] } = {},
): AddedUser {
  const email = `${role}-${randomUUID().slice(0, 8)}@e2e.test`;
  const result = spawnSync(
    process.execPath,
    [
      '--import',
      'tsx',
      'src/platform/main.ts',
      'users',
      'add',
      '--email',
      email,
      '--role',
      role,
      '--password',
      demoPassword,
      ...(name ? ['--name', name] : []),
      ...products.flatMap((product) => ['--product', product]),
    ],
    { env: { ...process.env, DATA_DIR: platformDataDir }, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`users add failed: ${result.stderr}`);
  // The command's last line: the user, with an investor's new accreditation or an issuer's products.
  const added = JSON.parse(result.stdout.trim().split('\n').at(-1)!) as Omit<
    AddedUser,
    'password' | 'products'
  > & {
    products?: OwnProduct[];
  };
  return { ...added, email, password: demoPassword, products: added.products ?? [] };
}
