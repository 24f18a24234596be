import { afterAll, expect, it } from 'vitest';
import { configFor } from '../config/env';
import { testBackend, type TestBackend } from '../testing/backends';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../db/database';
import { seedDemoData } from './demo-seed';

const dataDirs: string[] = [];
let backend: TestBackend | undefined;
afterAll(async () => {
  await backend?.dispose();
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
});

// Several instances of one platform start side by side on one empty database (deploy/).
it('migrates and seeds once when three instances start at once on an empty database', async () => {
  backend = await testBackend();
  const configs = [1, 2, 3].map(() => {
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-seed-'));
    dataDirs.push(dataDir);
    return configFor({ DATA_DIR: dataDir, DEMO_SEED: '1', ...backend!.env });
  });
  const dbs = await Promise.all(configs.map((config) => openDatabase(config)));
  try {
    const seeded = await Promise.all(dbs.map((db, i) => seedDemoData(db, configs[i]!)));
    expect(seeded.filter(Boolean)).toHaveLength(1);
    const users = await dbs[0]!.selectFrom('users').select('email').orderBy('email').execute();
    expect(users.map((u) => u.email)).toEqual(['admin@demo.test', 'investor@demo.test', 'issuer@demo.test']);
  } finally {
    await Promise.all(dbs.map((db) => db.destroy()));
  }
});
