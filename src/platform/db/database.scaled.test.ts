import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { configFor } from '../env';
import { freshPostgresSchema } from '../testing/postgres';
import { openDatabase } from './database';

// An operator may give the platform a schema of its own on a database that holds others
// (DATABASE_URL with `options=-c search_path=…`), some of them other platforms'.
it('migrates a PostgreSQL schema of its own while another schema of the database has the platform’s tables', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-schemas-'));
  const [first, second] = [await freshPostgresSchema(), await freshPostgresSchema()];
  try {
    const open = (url: string) => openDatabase(configFor({ DATA_DIR: dataDir, DATABASE_URL: url }));
    const one = await open(first.url);
    await one
      .insertInto('users')
      .values({ email: 'a@x.test', name: 'A', role: 'admin', password_hash: 'x', created_at: 1 })
      .execute();
    const two = await open(second.url);
    try {
      expect(await two.selectFrom('users').select('email').execute()).toEqual([]);
      expect(await one.selectFrom('users').select('email').execute()).toEqual([{ email: 'a@x.test' }]);
    } finally {
      await Promise.all([one.destroy(), two.destroy()]);
    }
  } finally {
    await Promise.all([first.drop(), second.drop()]);
    rmSync(dataDir, { recursive: true, force: true });
  }
});
