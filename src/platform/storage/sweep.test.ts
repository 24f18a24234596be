import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type DB, openDatabase } from '../db/database';
import { seedDemoData } from '../cli/demo-seed';
import { configFor } from '../config/env';
import { type StoreUnderTest, storesUnderTest } from '../testing/blob-stores';
import type { BlobStore } from './blob-store';
import { orphanAgeMs, sweepStorage } from './sweep';

const dataDir = mkdtempSync(join(tmpdir(), 'platform-sweep-'));
let db: DB;
let userId: number;
beforeAll(async () => {
  db = await openDatabase(configFor({ DATA_DIR: dataDir }));
  await seedDemoData(db, configFor({ DATA_DIR: dataDir }), Date.now());
  userId = (await db.selectFrom('users').select('id').orderBy('id').executeTakeFirstOrThrow()).id;
});
afterAll(async () => {
  await db.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A row naming `key`, as an upload inserts it once the file is committed. */
async function addRow(key: string) {
  await db
    .insertInto('assets')
    .values({
      name: 'file.bin',
      file_type: 'logo',
      assetable_type: 'User',
      assetable_id: userId,
      blob_key: key,
      content_type: 'application/octet-stream',
      size: 1,
      sha256: '0'.repeat(64),
      meta: '{}',
      private: 0,
      thumbnail_of: null,
      version: 1,
      created_by: userId,
      created_at: 1,
      updated_at: 1,
    })
    .execute();
}

async function commit(store: BlobStore, text: string) {
  const staged = await store.stage(Readable.from([Buffer.from(text)]), { maxBytes: 1000 });
  await staged.commit();
  return staged.key;
}

const hour = 3_600_000;

describe.each(storesUnderTest)('$kind storage sweep', ({ open }) => {
  let medium: StoreUnderTest;
  beforeEach(async () => {
    medium = await open();
  });
  afterEach(() => medium.close());

  it('at the start of the only process: every file without a row and every leftover goes', async () => {
    const named = await commit(medium.store, 'named');
    await addRow(named);
    await commit(medium.store, 'orphan');
    await medium.leaveUnfinishedUpload();

    const restarted = medium.reopen();
    expect(await sweepStorage({ db, blobs: restarted, clock: Date.now })).toEqual({
      leftovers: 1,
      orphans: 1,
    });
    expect(await medium.traces()).toHaveLength(1);
    expect((await buffer((await restarted.open(named))!)).toString()).toBe('named');
  });

  it('of a shared store: only what is older than the longest request goes', async () => {
    const limit = orphanAgeMs(hour);
    const named = await commit(medium.store, 'named');
    await addRow(named);
    const orphan = await commit(medium.store, 'orphan');
    await medium.leaveUnfinishedUpload();
    const ctx = (now: number) => ({ db, blobs: medium.reopen(), clock: () => now });

    // Young: another instance may still be uploading it, or about to insert its row.
    expect(await sweepStorage(ctx(Date.now()), { minAgeMs: limit })).toEqual({ leftovers: 0, orphans: 0 });
    expect(await sweepStorage(ctx(Date.now() + limit - 2 * 60_000), { minAgeMs: limit })).toEqual({
      leftovers: 0,
      orphans: 0,
    });
    expect(await medium.traces()).toHaveLength(3);

    // Older than any request can be: left by an instance that died.
    expect(await sweepStorage(ctx(Date.now() + limit + 2 * 60_000), { minAgeMs: limit })).toEqual({
      leftovers: 1,
      orphans: 1,
    });
    expect(await medium.traces()).toHaveLength(1);
    expect(await medium.store.size(orphan)).toBeUndefined();
    expect(await medium.store.size(named)).toBe(5);
  });

  it('never takes an upload in flight on another instance, whose row comes after the sweep', async () => {
    // Instance A receives a large file, slowly: its bytes are in the store (a multipart upload
    // under way, for S3) when instance B starts and sweeps.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const part = Buffer.alloc(1024 * 1024, 1);
    async function* slowFile() {
      for (let i = 0; i < 7; i++) yield part;
      await gate;
      for (let i = 0; i < 3; i++) yield part;
    }
    const staging = medium.store.stage(Readable.from(slowFile()), { maxBytes: 20 * 1024 * 1024 });
    await expect.poll(async () => (await medium.traces()).length).toBeGreaterThan(0);

    const instanceB = { db, blobs: medium.reopen(), clock: Date.now };
    expect(await sweepStorage(instanceB, { minAgeMs: orphanAgeMs(hour) })).toEqual({
      leftovers: 0,
      orphans: 0,
    });

    release();
    const staged = await staging;
    await staged.commit();
    await addRow(staged.key);
    expect(await medium.store.size(staged.key)).toBe(10 * 1024 * 1024);
    expect(await sweepStorage(instanceB, { minAgeMs: orphanAgeMs(hour) })).toEqual({
      leftovers: 0,
      orphans: 0,
    });
    expect(await medium.traces()).toHaveLength(1);
  });
});
