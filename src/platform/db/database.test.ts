import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AssetableType, assetableTypes } from '../../shared/api/me';
import { findEntity } from '../access/entity-access';
import { configFor } from '../config/env';
import { type DB, openDatabase, preparedRead } from './database';
import { seedDemoData } from '../cli/demo-seed';
import { assetById, assetWithOwnerById } from './repositories/assets';

const dataDir = mkdtempSync(join(tmpdir(), 'platform-db-'));
let db: DB;
/** One asset on the first entity of each assetable type, and a thumbnail of the first one. */
const assetIds = new Map<string, number>();

async function addAsset(
  assetableType: AssetableType,
  assetableId: number,
  thumbnailOf: number | null = null,
) {
  const { id } = await db
    .insertInto('assets')
    .values({
      name: `${assetableType}.png`,
      file_type: 'logo',
      assetable_type: assetableType,
      assetable_id: assetableId,
      blob_key: `key-${assetableType}-${assetableId}-${thumbnailOf ?? 0}`,
      content_type: 'image/png',
      size: 1,
      sha256: '0'.repeat(64),
      meta: '{}',
      private: 0,
      thumbnail_of: thumbnailOf,
      version: 1,
      created_by: 1,
      created_at: 1,
      updated_at: 1,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

const firstId = (
  table: 'users' | 'products' | 'investments' | 'team_members' | 'accreditations' | 'indications_of_interest',
) => db.selectFrom(table).select('id').orderBy('id').executeTakeFirstOrThrow();

beforeAll(async () => {
  db = await openDatabase(configFor({ DATA_DIR: dataDir }));
  await seedDemoData(db, configFor({ DATA_DIR: dataDir }), Date.now());
  const tables = {
    User: 'users',
    Product: 'products',
    Investment: 'investments',
    TeamMember: 'team_members',
    Accreditation: 'accreditations',
    IndicationOfInterest: 'indications_of_interest',
  } as const;
  for (const type of assetableTypes)
    assetIds.set(type, await addAsset(type, (await firstId(tables[type])).id));
  assetIds.set(
    'thumbnail',
    await addAsset('Product', (await firstId('products')).id, assetIds.get('Product')!),
  );
  assetIds.set('orphan', await addAsset('Product', 999_999));
});

afterAll(async () => {
  await db.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('assetWithOwnerById (one read for GET /v2/core/assets/:id)', () => {
  it.each(assetableTypes)('answers the owner findEntity answers, for a %s', async (type) => {
    const row = await assetWithOwnerById(db, assetIds.get(type)!);
    const entity = await findEntity(db, type, row!.assetable_id);
    expect(entity).toBeDefined();
    expect(row!.owner_id).toBe(entity!.ownerId);
  });

  it('answers the row and thumbnail assetById answers', async () => {
    const id = assetIds.get('Product')!;
    const { owner_id: _owner, ...row } = (await assetWithOwnerById(db, id))!;
    expect(row).toEqual(await assetById(db, id));
    expect(row.thumbnail_id).toBe(assetIds.get('thumbnail'));
  });

  it('answers no owner for a missing entity, and nothing for a missing asset', async () => {
    expect((await assetWithOwnerById(db, assetIds.get('orphan')!))!.owner_id).toBeNull();
    expect(await assetWithOwnerById(db, 123_456_789)).toBeUndefined();
  });
});

describe('preparedRead', () => {
  const nameOf = preparedRead((db: DB, id: number) =>
    db.selectFrom('assets').select(['id', 'name']).where('id', '=', id),
  );

  it('reads what the same Kysely query reads', async () => {
    const id = assetIds.get('User')!;
    expect(await nameOf(db, id)).toEqual({ id, name: 'User.png' });
    expect(await nameOf(db, 123_456_789)).toBeUndefined();
  });

  it('waits for a transaction in progress instead of reading its uncommitted writes', async () => {
    const id = assetIds.get('Investment')!;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let written!: () => void;
    const renamed = new Promise<void>((resolve) => (written = resolve));
    const transaction = db.transaction().execute(async (trx) => {
      await trx.updateTable('assets').set({ name: 'renamed.png' }).where('id', '=', id).execute();
      written();
      await held;
      throw new Error('roll back');
    });
    // The read starts while the transaction holds its uncommitted rename.
    await renamed;
    const read = nameOf(db, id);
    release();
    await expect(transaction).rejects.toThrow('roll back');
    expect(await read).toEqual({ id, name: 'Investment.png' });
  });

  it('refuses a query that does not use its arguments as plain values', async () => {
    const shifted = preparedRead((db: DB, id: number) =>
      db
        .selectFrom('assets')
        .select('id')
        .where('id', '=', Number(id) + 1),
    );
    await expect(shifted(db, 1)).rejects.toThrow(/not a plain value/);
  });
});

describe('openDatabase', () => {
  it('syncs every commit to disk, so that an answered write survives a power loss (WAL, synchronous FULL)', async () => {
    const { rows: journal } = await sql<{ journal_mode: string }>`PRAGMA journal_mode`.execute(db);
    const { rows: sync } = await sql<{ synchronous: number }>`PRAGMA synchronous`.execute(db);
    expect(journal[0]!.journal_mode).toBe('wal');
    expect(sync[0]!.synchronous).toBe(2); // 0 OFF, 1 NORMAL, 2 FULL, 3 EXTRA
  });
});
