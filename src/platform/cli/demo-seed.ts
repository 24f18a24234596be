import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { PlatformConfig } from '../config/env';
import { openAccreditation } from '../entities/accreditations';
import { createClient } from '../oauth/clients';
import { createUser } from '../security/accounts';
import { type DB, whileEmpty } from '../db/database';
import {
  insertIndicationOfInterest,
  insertInvestment,
  insertProduct,
  insertTeamMember,
} from '../db/repositories/entities';

export const webClientId = 'asset-manager';

/**
 * Demo data of running.md, created only on an empty database: three users, their entities, and
 * the web app's OAuth client, whose secret is written to DATA_DIR/web-client.json for `npm start`.
 */
export async function seedDemoData(db: DB, config: PlatformConfig, now = Date.now()): Promise<boolean> {
  return whileEmpty(db, (trx) => seed(trx, config, now));
}

async function seed(db: DB, config: PlatformConfig, now: number) {
  const password = config.demoPassword;
  const investor = await createUser(
    db,
    { email: 'investor@demo.test', role: 'investor', password, name: 'Ivy Investor' },
    now,
  );
  const issuer = await createUser(
    db,
    { email: 'issuer@demo.test', role: 'issuer', password, name: 'Isaac Issuer' },
    now,
  );
  await createUser(db, { email: 'admin@demo.test', role: 'admin', password, name: 'Ada Admin' }, now);

  const productNames = ['Solar Farm Fund I', 'Harbor Street Lofts'];
  const productIds: number[] = [];
  for (const [i, name] of productNames.entries()) {
    const productId = await insertProduct(db, { ownerId: issuer.id, name, createdAt: now });
    productIds.push(productId);
    const series = { productId, ownerId: issuer.id, name: `${name} — Series A`, createdAt: now };
    await insertInvestment(db, series);
    await insertTeamMember(db, { productId, name: ['Grace Founder', 'Omar Partner'][i]!, createdAt: now });
  }
  await openAccreditation(db, investor, now);
  await insertIndicationOfInterest(db, {
    ownerId: investor.id,
    productId: productIds[0]!,
    name: `Interest in ${productNames[0]}`,
    createdAt: now,
  });

  const redirectUri = `${config.webPublicUrl}/auth/callback`;
  const client = await createClient(
    db,
    { clientId: webClientId, name: 'Asset Manager', redirectUris: [redirectUri] },
    now,
  );
  writeFileSync(
    join(config.dataDir, 'web-client.json'),
    `${JSON.stringify({ ...client, redirect_uris: [redirectUri] }, null, 2)}\n`,
    { mode: 0o600 },
  );
}
