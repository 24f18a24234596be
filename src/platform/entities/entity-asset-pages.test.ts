import { CompiledQuery, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetPageSchema } from '../../shared/api/entity-assets';
import { problemSchema } from '../../shared/api/problem';
import { productSchema } from '../../shared/api/products';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { type DB, dialectOf, openDatabase } from '../db/database';
import { entityAssetPageQuery } from '../db/repositories/assets';
import { insertAssetRows } from '../testing/bulk-assets';
import { csv, multipartBody, pdf, png, type UploadFile } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { pollUntil, thumbnailGate } from '../testing/thumbnails';

/**
 * An entity's assets a page at a time (issue 15, point 5): `GET /v2/core/<plural>/:id/assets` with
 * `cursor` and `limit`, and the entity read that sideloads the first page.
 */
let platform: TestPlatform;
let db: DB;
let issuer: string;
let basicIssuer: string;
let investor: string;
let admin: string;
let issuerId: number;
const renders = thumbnailGate();

beforeAll(async () => {
  platform = await startPlatform({}, { thumbnailHooks: renders.at('beforeRender') });
  db = await openDatabase(platform.config);
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  basicIssuer = (await tokensFor(platform, 'issuer@demo.test', 'basic')).access_token;
  investor = (await tokensFor(platform, 'investor@demo.test')).access_token;
  admin = (await tokensFor(platform, 'admin@demo.test')).access_token;
  const found = db.selectFrom('users').select('id').where('email', '=', 'issuer@demo.test');
  issuerId = (await found.executeTakeFirstOrThrow()).id;
});
afterAll(async () => {
  renders.release();
  await db.destroy();
  await platform.close();
});

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, { ...init, headers: { ...bearer(token) } });

/** A product of the demo issuer with no assets yet. */
async function newProduct(name: string) {
  const { id } = await db
    .insertInto('products')
    .values({ owner_id: issuerId, name, created_at: Date.now() })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

async function upload(productId: number, fields: Record<string, string>, file: UploadFile) {
  const response = await api('/v2/core/assets', issuer, {
    method: 'POST',
    body: multipartBody({ assetable_type: 'Product', assetable_id: String(productId), ...fields }, file),
  });
  expect(response.status, await response.clone().text()).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

/** `count` charter documents uploaded one after another; their ids, oldest first. */
async function uploadCharters(productId: number, count: number) {
  const ids: number[] = [];
  for (let i = 0; i < count; i++)
    ids.push(
      (await upload(productId, { file_type: 'charter_document' }, { name: `c${i}.csv`, bytes: csv() })).id,
    );
  return ids;
}

const seedRows = (productId: number, count: number, isPrivate?: (index: number) => boolean) =>
  insertAssetRows(
    db,
    { type: 'Product', id: productId },
    { count, fileType: 'charter_document', createdBy: issuerId, private: isPrivate },
  );

async function assetPage(token: string, path: string) {
  const response = await api(path, token);
  expect(response.status, await response.clone().text()).toBe(200);
  return assetPageSchema.parse(await response.json());
}

const listPath = (productId: number, query = '') => `/v2/core/products/${productId}/assets${query}`;

/**
 * Every page of a product's list, `limit` at a time: the ids in the order given, and each page's
 * length. `between` runs after each page.
 */
async function everyPage(
  token: string,
  productId: number,
  limit: number,
  between: (page: number) => Promise<void> = async () => {},
) {
  const ids: number[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const page = await assetPage(token, listPath(productId, query));
    ids.push(...page.assets.map((a) => a.id));
    sizes.push(page.assets.length);
    cursor = page.next_cursor;
    await between(sizes.length - 1);
  } while (cursor);
  return { ids, sizes };
}

const newestFirst = (ids: number[]) => [...ids].sort((a, b) => b - a);

async function readProduct(token: string, productId: number) {
  const response = await api(`/v2/core/products/${productId}`, token);
  expect(response.status, await response.clone().text()).toBe(200);
  const text = await response.text();
  const body = assetPageSchema.extend({ product: productSchema }).parse(JSON.parse(text));
  const links = (JSON.parse(text) as { product: { links: Record<string, string> } }).product.links;
  return { body, links, bytes: Buffer.byteLength(text) };
}

async function expectInvalid(path: string, token: string, field: string) {
  const response = await api(path, token);
  const text = await response.text();
  expect(response.status, `${path}: ${text}`).toBe(422);
  const problem = problemSchema.parse(JSON.parse(text));
  expect(problem.code).toBe('validation_failed');
  expect(problem.errors?.[0]?.field, path).toBe(field);
}

describe('an entity’s assets, a page at a time', () => {
  it('come newest first in full pages; only the last page says there is no next one', async () => {
    const product = await newProduct('Seven charters');
    const uploaded = await uploadCharters(product, 7);
    expect(await everyPage(issuer, product, 3)).toEqual({ ids: newestFirst(uploaded), sizes: [3, 3, 1] });
    // A page that ends exactly at the last asset is the last page: no cursor to an empty one.
    expect(await everyPage(issuer, product, 7)).toEqual({ ids: newestFirst(uploaded), sizes: [7] });
    expect(await everyPage(issuer, product, 6)).toEqual({ ids: newestFirst(uploaded), sizes: [6, 1] });
    // The entity read sideloads them all: one page, no link onwards.
    const { body, links } = await readProduct(investor, product);
    expect(body.assets.map((a) => a.id)).toEqual(newestFirst(uploaded));
    expect(body.next_cursor).toBeNull();
    expect(links).toEqual({ assets: listPath(product) });
  });

  it('the entity read sideloads the newest 100 and links to the rest; lists take 100 unless asked, 500 at most', async () => {
    const product = await newProduct('Ten thousand charters');
    const ids = newestFirst(await seedRows(product, 10_000));

    // 10 000 assets do not make a 3 MB answer: the first page, and the way on.
    const { body, links, bytes } = await readProduct(investor, product);
    expect(body.assets.map((a) => a.id)).toEqual(ids.slice(0, 100));
    expect(bytes).toBeLessThan(100_000);
    expect(body.next_cursor).toEqual(expect.any(String));
    expect(links).toEqual({
      assets: listPath(product),
      next_assets: listPath(product, `?cursor=${body.next_cursor}`),
    });
    const second = await assetPage(investor, links.next_assets!);
    expect(second.assets.map((a) => a.id)).toEqual(ids.slice(100, 200));

    expect((await assetPage(investor, listPath(product))).assets).toHaveLength(100);
    expect((await assetPage(investor, listPath(product, '?limit=500'))).assets).toHaveLength(500);
    // More than the maximum is the maximum.
    const big = await assetPage(investor, listPath(product, '?limit=100000'));
    expect(big.assets.map((a) => a.id)).toEqual(ids.slice(0, 500));
    const after = await assetPage(investor, listPath(product, `?limit=100000&cursor=${big.next_cursor}`));
    expect(after.assets.map((a) => a.id)).toEqual(ids.slice(500, 1000));
  });

  it('refuses a cursor it did not give, a limit that is not a whole number from 1, an unknown file type', async () => {
    const product = await newProduct('Refusals');
    const other = await newProduct('Another');
    await seedRows(product, 3);
    await seedRows(other, 3);
    const ofOther = (await assetPage(issuer, listPath(other, '?limit=1'))).next_cursor!;
    const ofLogos = (await assetPage(issuer, listPath(product, '?limit=1&file_type=charter_document')))
      .next_cursor!;
    const ofProducts = (
      (await (await api('/v2/core/products?limit=1', issuer)).json()) as {
        next_cursor: string;
      }
    ).next_cursor;
    for (const cursor of ['bm9wZQ', '%5B%5D', ofOther, ofLogos, ofProducts])
      await expectInvalid(listPath(product, `?cursor=${cursor}`), issuer, 'cursor');
    for (const limit of ['0', '-1', 'ten', '1.5'])
      await expectInvalid(listPath(product, `?limit=${limit}`), issuer, 'limit');
    await expectInvalid(listPath(product, '?file_type=nonsense'), issuer, 'file_type');
    // The entity's own access comes first: a list the caller may not read is a 404, cursor or not.
    const accreditation = await db.selectFrom('accreditations').select('id').executeTakeFirstOrThrow();
    const hidden = await api(`/v2/core/accreditations/${accreditation.id}/assets?cursor=bm9wZQ`, issuer);
    expect(hidden.status).toBe(404);
  });

  it('leaves out the private assets the caller may not see, in the query: pages stay full', async () => {
    const product = await newProduct('Mostly private');
    // 30 assets, two of every three private, the newest ones among them.
    const ids = await seedRows(product, 30, (index) => index % 3 !== 0);
    const publicIds = newestFirst(ids.filter((_, index) => index % 3 === 0));
    expect(publicIds).toHaveLength(10);

    // Another signed-in user reads offering material: the public ones only, four to a full page.
    expect(await everyPage(investor, product, 4)).toEqual({ ids: publicIds, sizes: [4, 4, 2] });
    // A basic token reads only the public ones, even its owner's.
    expect(await everyPage(basicIssuer, product, 4)).toEqual({ ids: publicIds, sizes: [4, 4, 2] });
    // The owner and admins see every one.
    for (const token of [issuer, admin])
      expect(await everyPage(token, product, 8)).toEqual({ ids: newestFirst(ids), sizes: [8, 8, 8, 6] });
    // The sideloaded first page follows the same rule.
    const { body } = await readProduct(investor, product);
    expect(body.assets.map((a) => a.id)).toEqual(publicIds);
    expect(body.assets.every((a) => !a.private)).toBe(true);
  });

  it('lists no thumbnail, pending or made: a PDF is listed once, with its thumbnail_id', async () => {
    const product = await newProduct('Decks');
    renders.hold();
    try {
      const first = await upload(
        product,
        { file_type: 'charter_document' },
        { name: 'a.pdf', bytes: await pdf('A') },
      );
      const between = await upload(
        product,
        { file_type: 'logo' },
        { name: 'logo.png', bytes: await png(8, 8) },
      );
      const second = await upload(
        product,
        { file_type: 'pitch_deck' },
        { name: 'b.pdf', bytes: await pdf('B') },
      );
      const thumbnails = [first.thumbnail_id, second.thumbnail_id].map(Number);
      expect(thumbnails.every(Number.isSafeInteger)).toBe(true);
      // While their thumbnails are pending: one asset to a page, no page empty, no thumbnail.
      const pending = await everyPage(investor, product, 1);
      expect(pending).toEqual({ ids: [second.id, between.id, first.id], sizes: [1, 1, 1] });
      const asset = await (await api(`/v2/core/assets/${thumbnails[0]}`, investor)).json();
      expect(asset).toMatchObject({ asset: { pending: true } });
      const { body } = await readProduct(investor, product);
      expect(body.assets.map((a) => [a.id, a.thumbnail_id])).toEqual([
        [second.id, String(thumbnails[1])],
        [between.id, undefined],
        [first.id, String(thumbnails[0])],
      ]);
    } finally {
      renders.release();
    }
    // Made: still listed the same way.
    await pollUntil('the thumbnails to be made', async () => {
      const rows = await db
        .selectFrom('assets')
        .select('pending')
        .where('assetable_id', '=', product)
        .where('thumbnail_of', 'is not', null)
        .execute();
      return rows.length === 2 && rows.every((r) => r.pending === 0) ? true : undefined;
    });
    const made = await everyPage(investor, product, 2);
    expect(made.sizes).toEqual([2, 1]);
    expect(made.ids).toHaveLength(3);
  });

  it('goes on after the asset a cursor points at is deleted, and new uploads do not shift later pages', async () => {
    const product = await newProduct('Deleted between pages');
    const uploaded = newestFirst(await uploadCharters(product, 7));
    const seen = await everyPage(issuer, product, 3, async (page) => {
      if (page !== 0) return;
      // The last asset of the first page (where its cursor points) and the first of the next one.
      for (const id of [uploaded[2], uploaded[3]]) {
        const response = await api(`/v2/core/assets/${id}`, issuer, { method: 'DELETE' });
        expect(response.status).toBe(204);
      }
      await uploadCharters(product, 1);
    });
    expect(seen).toEqual({ ids: [...uploaded.slice(0, 3), ...uploaded.slice(4)], sizes: [3, 3] });
  });

  it('narrows to one file type: a single-file slot’s newest file, as the caller may see it', async () => {
    const product = await newProduct('Logos');
    const logo = await upload(product, { file_type: 'logo' }, { name: 'old.png', bytes: await png(8, 8) });
    await uploadCharters(product, 3);
    const secret = await upload(
      product,
      { file_type: 'logo', private: 'true' },
      { name: 'new.png', bytes: await png(8, 8) },
    );
    const newest = (token: string) => assetPage(token, listPath(product, '?file_type=logo&limit=1'));
    expect((await newest(investor)).assets.map((a) => a.id)).toEqual([logo.id]);
    expect((await newest(investor)).next_cursor).toBeNull();
    const own = await newest(issuer);
    expect(own.assets.map((a) => a.id)).toEqual([secret.id]);
    const older = await assetPage(
      issuer,
      listPath(product, `?file_type=logo&limit=1&cursor=${own.next_cursor}`),
    );
    expect(older.assets.map((a) => a.id)).toEqual([logo.id]);
    expect(older.next_cursor).toBeNull();
  });
});

describe('the page query', () => {
  type Page = Parameters<typeof entityAssetPageQuery>[2];

  /** The engine's plan of the query, one line per step. */
  async function planOf(page: Page) {
    const { sql: text, parameters } = entityAssetPageQuery(db, { type: 'Product', id: 1 }, page).compile();
    if (dialectOf(db) === 'sqlite') {
      const plan = await db.executeQuery<{ detail: string }>(
        CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]),
      );
      return plan.rows.map((row) => row.detail);
    }
    // PostgreSQL prefers scanning a table this small; without that choice, whether the index can
    // give the rows in page order (no sort) is what decides the plan.
    return db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const plan = await trx.executeQuery<{ 'QUERY PLAN': string }>(
        CompiledQuery.raw(`EXPLAIN ${text}`, [...parameters]),
      );
      return plan.rows.map((row) => row['QUERY PLAN'].trim());
    });
  }

  /** Reads the rows from `index` in page order, and each listed asset's thumbnail id by its index. */
  async function expectIndexedPage(page: Page, index: string, columns: string) {
    const plan = await planOf(page);
    const text = plan.join('\n');
    if (dialectOf(db) === 'sqlite') {
      expect(plan[0], text).toMatch(new RegExp(`^SEARCH assets USING INDEX ${index} \\(${columns}`));
      expect(text).toMatch(/SEARCH t USING (COVERING )?INDEX assets_by_parent \(thumbnail_of=\?\)/);
      expect(text).not.toMatch(/TEMP B-TREE|SCAN assets/);
    } else {
      expect(text).toMatch(new RegExp(`Index (Only )?Scan( Backward)? using ${index} on assets`));
      expect(text).toMatch(/Index (Only )?Scan using assets_by_parent on assets t/);
      expect(text).not.toMatch(/\bSort\b|Seq Scan on assets\b/);
    }
  }

  it('reads the entity’s rows from the index in page order: no sort, however many assets', async () => {
    for (const page of [
      { limit: 100, withPrivate: true },
      { limit: 100, withPrivate: false, before: 5000 },
    ])
      await expectIndexedPage(page, 'assets_by_entity', 'assetable_type=\\? AND assetable_id=\\?');
    await expectIndexedPage(
      { limit: 1, withPrivate: true, fileType: 'logo' },
      'assets_by_entity_file_type',
      'assetable_type=\\? AND assetable_id=\\? AND file_type=\\?',
    );
  });
});
