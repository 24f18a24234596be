import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { migrationsFor, openDatabase } from '../database';
import { configFor } from '../../config/env';
import type { Database } from '../schema';

const dataDir = mkdtempSync(join(tmpdir(), 'platform-0004-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('migration 0004 on a database that has assets and thumbnails already', () => {
  it('keeps every existing asset and thumbnail made (not pending), and refuses any other state', async () => {
    // The database as the previous version left it: a PDF and its thumbnail, both with their files.
    const old = new Kysely<Database>({
      dialect: new SqliteDialect({ database: new SQLite(join(dataDir, 'platform.sqlite')) }),
    });
    const migrator = new Migrator({
      db: old,
      provider: {
        getMigrations: async () => migrationsFor('sqlite', '0004-pending-thumbnails'),
      },
    });
    expect((await migrator.migrateToLatest()).error).toBeUndefined();
    await old
      .insertInto('users')
      .values({ email: 'i@x.test', name: 'I', role: 'issuer', password_hash: 'x', created_at: 1 })
      .execute();
    const asset = (key: string, thumbnailOf: number | null) => ({
      name: key,
      file_type: 'pitch_deck',
      assetable_type: 'Product' as const,
      assetable_id: 1,
      blob_key: key,
      content_type: thumbnailOf ? 'image/png' : 'application/pdf',
      size: 10,
      sha256: 'f'.repeat(64),
      meta: '{}',
      private: 0,
      thumbnail_of: thumbnailOf,
      version: 1,
      created_by: 1,
      created_at: 1,
      updated_at: 1,
    });
    // Written without the new columns, as the old code did.
    const insert = (values: ReturnType<typeof asset>) =>
      old
        .insertInto('assets')
        .values(values as never)
        .execute();
    await insert(asset('deck', null));
    await insert(asset('deck-thumbnail', 1));
    await old.destroy();

    const db = await openDatabase(configFor({ DATA_DIR: dataDir }));
    try {
      const rows = await db
        .selectFrom('assets')
        .select(['blob_key', 'pending', 'render_attempts'])
        .orderBy('id')
        .execute();
      expect(rows).toEqual([
        { blob_key: 'deck', pending: 0, render_attempts: 0 },
        { blob_key: 'deck-thumbnail', pending: 0, render_attempts: 0 },
      ]);
      await expect(
        db.updateTable('assets').set({ pending: 2 }).where('id', '=', 2).execute(),
      ).rejects.toThrow(/CHECK constraint failed/);
    } finally {
      await db.destroy();
    }
  });
});
