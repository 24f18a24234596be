import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { productListSchema, productPartSchema, productSchema } from '../../shared/api/products';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { type DB, openDatabase } from '../db/database';
import { multipartBody, png } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';

let platform: TestPlatform;
let db: DB;
let investor: string;
let issuer: string;
let admin: string;
let issuerId: number;

beforeAll(async () => {
  platform = await startPlatform();
  db = await openDatabase(platform.config);
  investor = (await tokensFor(platform, 'investor@demo.test')).access_token;
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  admin = (await tokensFor(platform, 'admin@demo.test')).access_token;
  const found = db.selectFrom('users').select('id').where('email', '=', 'issuer@demo.test');
  issuerId = (await found.executeTakeFirstOrThrow()).id;
});
afterAll(async () => {
  await db.destroy();
  await platform.close();
});

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${platform.url}${path}`, {
    ...init,
    headers: { ...bearer(token), ...(init.headers as Record<string, string>) },
  });

async function products(token: string, query = '') {
  const response = await api(`/v2/core/products${query}`, token);
  expect(response.status, await response.clone().text()).toBe(200);
  return productListSchema.parse(await response.json());
}

/** Every product, page by page, asking for `limit` at a time; `between` runs after each page. */
async function everyProduct(
  token: string,
  limit: number,
  between: (page: number) => Promise<void> = async () => {},
) {
  const ids: number[] = [];
  let cursor: string | null = null;
  let page = 0;
  do {
    const body = await products(token, `?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(body.products.length).toBeLessThanOrEqual(limit);
    ids.push(...body.products.map((p) => p.id));
    cursor = body.next_cursor;
    await between(page++);
  } while (cursor);
  return ids;
}

async function addProducts(count: number, prefix: string) {
  const rows = Array.from({ length: count }, (_, i) => ({
    owner_id: issuerId,
    name: `${prefix} ${i}`,
    created_at: Date.now(),
  }));
  await db.insertInto('products').values(rows).execute();
}

async function uploadLogo(productId: number, fields: Record<string, string> = {}) {
  const response = await api('/v2/core/assets', issuer, {
    method: 'POST',
    body: multipartBody(
      { file_type: 'logo', assetable_type: 'Product', assetable_id: String(productId), ...fields },
      { name: 'logo.png', bytes: await png(40, 40) },
    ),
  });
  expect(response.status).toBe(201);
  return assetEnvelopeSchema.parse(await response.json()).asset;
}

describe('GET /v2/core/products', () => {
  it('lists every product to investors, issuers and admins, newest first, with its logo', async () => {
    const [newest] = (await products(investor)).products;
    const logo = await uploadLogo(newest!.id);
    for (const token of [investor, issuer, admin]) {
      const body = await products(token);
      expect(body.products.map((p) => p.name)).toEqual(['Harbor Street Lofts', 'Solar Farm Fund I']);
      expect(body.products[0]).toEqual({
        id: newest!.id,
        name: 'Harbor Street Lofts',
        logo_asset_id: logo.id,
      });
      expect(body.products[1]!.logo_asset_id).toBeNull();
      expect(body.next_cursor).toBeNull();
    }
    // The newest logo the caller may see: a private one only to its owner.
    const secret = await uploadLogo(newest!.id, { private: 'true' });
    expect((await products(issuer)).products[0]!.logo_asset_id).toBe(secret.id);
    expect((await products(investor)).products[0]!.logo_asset_id).toBe(logo.id);
    expect((await products(admin)).products[0]!.logo_asset_id).toBe(secret.id);
  });

  it('lists only their own products to a basic token', async () => {
    const basicInvestor = (await tokensFor(platform, 'investor@demo.test', 'basic')).access_token;
    expect((await products(basicInvestor)).products).toEqual([]);
    const basicIssuer = (await tokensFor(platform, 'issuer@demo.test', 'basic')).access_token;
    expect((await products(basicIssuer)).products.length).toBeGreaterThan(0);
  });

  it('pages 20 by default and at most 100, with cursors that hold while products are added', async () => {
    await addProducts(130, 'Listed');
    const all = await everyProduct(investor, 100);
    expect(all.length).toBeGreaterThanOrEqual(132);
    expect([...all].sort((a, b) => b - a)).toEqual(all);

    expect((await products(investor)).products).toHaveLength(20);
    // More than the maximum is the maximum.
    const big = await products(investor, '?limit=500');
    expect(big.products).toHaveLength(100);
    expect(big.next_cursor).not.toBeNull();

    // Products added while someone pages: no page repeats or skips what was there when paging began.
    const seen = await everyProduct(investor, 7, async (page) => {
      if (page < 3) await addProducts(5, `Added during page ${page}`);
    });
    expect(seen).toEqual(all);
  });

  it('refuses limits and cursors it did not give', async () => {
    for (const query of [
      '?limit=0',
      '?limit=-1',
      '?limit=ten',
      '?limit=1.5',
      '?cursor=bm9wZQ',
      '?cursor=%5B%5D',
    ]) {
      const response = await api(`/v2/core/products${query}`, investor);
      expect(response.status, query).toBe(422);
      const problem = (await response.json()) as { code: string; errors: { field: string }[] };
      expect(problem.code).toBe('validation_failed');
      expect(problem.errors[0]!.field, query).toBe(query.slice(1, query.indexOf('=')));
    }
  });
});

describe('a product and its parts', () => {
  it('names its investments and team members, and they name it', async () => {
    const solarFarm = db.selectFrom('products').select('id').where('name', '=', 'Solar Farm Fund I');
    const { id } = await solarFarm.executeTakeFirstOrThrow();
    const response = await api(`/v2/core/products/${id}`, investor);
    expect(response.status).toBe(200);
    const product = productSchema.parse(((await response.json()) as { product: unknown }).product);
    expect(product).toMatchObject({
      id,
      name: 'Solar Farm Fund I',
      investments: [{ name: 'Solar Farm Fund I — Series A' }],
      team_members: [{ name: 'Grace Founder' }],
    });
    const investment = await api(`/v2/core/investments/${product.investments[0]!.id}`, investor);
    const teamMember = await api(`/v2/core/team_members/${product.team_members[0]!.id}`, investor);
    for (const [answer, key] of [
      [investment, 'investment'],
      [teamMember, 'team_member'],
    ] as const) {
      expect(answer.status).toBe(200);
      const part = productPartSchema.parse(((await answer.json()) as Record<string, unknown>)[key]);
      expect(part.product).toEqual({ id, name: 'Solar Farm Fund I' });
    }
  });
});
