import { parseArgs } from 'node:util';
import { roles, type Role } from '../../shared/api/me';
import { openDatabase } from '../db/database';
import type { PlatformConfig } from '../env';
import { openAccreditation } from '../entities/accreditations';
import { createClient } from '../oauth/clients';
import { createUser } from '../users/users';

const usage = `Usage:
  npm run platform -- clients add --name NAME --redirect-uri URI [--redirect-uri URI2 ...]
  npm run platform -- users add --email EMAIL --role investor|issuer|admin --password PASSWORD [--name NAME]`;

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
        },
      });
      const role = values.role as Role;
      if (!values.email || !values.password || !roles.includes(role)) throw new Error(usage);
      const user = await createUser(db, {
        email: values.email,
        role,
        password: values.password,
        name: values.name,
      });
      // An investor is accredited before investing: their accreditation is there to fill in at once.
      const accreditation = role === 'investor' ? await openAccreditation(db, user) : undefined;
      console.log(JSON.stringify(accreditation ? { ...user, accreditation } : user));
    }
  } finally {
    await db.destroy();
  }
}
