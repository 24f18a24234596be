import { parseArgs } from 'node:util';
import { roles, type Role } from '../../shared/api/me';
import { openDatabase } from '../db/database';
import type { PlatformConfig } from '../config/env';
import { openAccreditation } from '../entities/accreditations';
import { createClient } from '../oauth/clients';
import { createUser } from '../security/accounts';
import { insertInvestment, insertProduct, insertTeamMember } from '../db/repositories/entities';
import type { DB } from '../db/database';

const usage = `Usage:
  npm run platform -- clients add --name NAME --redirect-uri URI [--redirect-uri URI2 ...]
  npm run platform -- users add --email EMAIL --role investor|issuer|admin --password PASSWORD [--name NAME]
                                [--product NAME ...]   (issuers: a product with one investment and one team member)`;

/**
 * A product as the demo's come: one investment (its "Series A") and one team member, so that every
 * kind of entity an issuer owns has a page. End-to-end tests give each test an issuer of its own with one.
 */
async function addProduct(db: DB, ownerId: number, name: string) {
  const createdAt = Date.now();
  const id = await insertProduct(db, { ownerId, name, createdAt });
  const investment = await insertInvestment(db, {
    productId: id,
    ownerId,
    name: `${name} — Series A`,
    createdAt,
  });
  const teamMember = await insertTeamMember(db, { productId: id, name: `${name} founder`, createdAt });
  return { id, name, investment: { id: investment }, team_member: { id: teamMember } };
}

/** The admin commands of running.md. They open the data directory directly, with or without a server running. */
export async function runAdminCommand(config: PlatformConfig, argv: string[]): Promise<void> {
  const [resource, action, ...rest] = argv;
  if (action !== 'add' || (resource !== 'clients' && resource !== 'users')) throw new Error(usage);
  const db = await openDatabase(config);
  try {
    if (resource === 'clients') {
      const { values } = parseArgs({
        args: rest,
        options: { name: { type: 'string' }, 'redirect-uri': { type: 'string', multiple: true } },
      });
      const redirectUris = values['redirect-uri'] ?? [];
      if (!values.name || redirectUris.length === 0) throw new Error(usage);
      const client = await createClient(db, { name: values.name, redirectUris });
      console.log(`Registered client "${values.name}". Keep the secret: it is shown only once.`);
      console.log(JSON.stringify(client));
    } else {
      const { values } = parseArgs({
        args: rest,
        options: {
          email: { type: 'string' },
          role: { type: 'string' },
          password: { type: 'string' },
          name: { type: 'string' },
          product: { type: 'string', multiple: true },
        },
      });
      const role = values.role as Role;
      const productNames = values.product ?? [];
      if (!values.email || !values.password || !roles.includes(role)) throw new Error(usage);
      if (productNames.length > 0 && role !== 'issuer') throw new Error(usage);
      const user = await createUser(db, {
        email: values.email,
        role,
        password: values.password,
        name: values.name,
      });
      // An investor is accredited before investing: their accreditation is there to fill in at once.
      const accreditation = role === 'investor' ? await openAccreditation(db, user) : undefined;
      const products = [];
      for (const name of productNames) products.push(await addProduct(db, user.id, name));
      console.log(
        JSON.stringify({
          ...user,
          ...(accreditation && { accreditation }),
          ...(products.length > 0 && { products }),
        }),
      );
    }
  } finally {
    await db.destroy();
  }
}
