/**
 * An entity page's read as the entity grows (performance.md S11; issue 15, point 5), with a platform
 * of its own so that `BENCH_ONLY=paging npm run bench` runs it alone.
 *   S11  p50 latency of GET /v2/core/products/:id (the product with the first page of its assets)
 *        for a product with 100 000 assets ÷ the same for a product with 100; one client, keep-alive,
 *        the three products (100, 10 000, 100 000 assets) in interleaved phases, medians of 5 rounds
 *   S11m the same for 10 000 assets ÷ 100
 * The assets are rows added through the platform's own database module in one transaction (as the
 * tests do): 110 100 uploads over HTTP would take an hour and measure uploads, not reads.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/platform/db/database';
import { configFor } from '../../src/platform/config/env';
import { insertAssetRows } from '../../src/platform/testing/bulk-assets';
import { type BenchRow, latencies, median, roundRatios, startBenchPlatform, stopAll } from './common';
import { type Engines, startEngines } from './engines';

const sizes = [100, 10_000, 100_000] as const;
const phaseMs = 2000;

const percentile = (values: number[], p: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((values.length * p) / 100))]!;

/** One product of the demo issuer per size, each with that many assets. */
async function seedProducts(dataDir: string, backendEnv: Record<string, string>) {
  const db = await openDatabase(configFor({ ...backendEnv, DATA_DIR: dataDir }));
  try {
    const issuer = await db
      .selectFrom('users')
      .select('id')
      .where('email', '=', 'issuer@demo.test')
      .executeTakeFirstOrThrow();
    const products: Record<number, number> = {};
    for (const count of sizes) {
      const { id } = await db
        .insertInto('products')
        .values({ owner_id: issuer.id, name: `Bench ${count}`, created_at: Date.now() })
        .returning('id')
        .executeTakeFirstOrThrow();
      const started = performance.now();
      await insertAssetRows(
        db,
        { type: 'Product', id },
        { count, fileType: 'charter_document', createdBy: issuer.id },
      );
      console.log(
        `paging (${backendEnv.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}): ${count} assets added in ${(performance.now() - started).toFixed(0)} ms`,
      );
      products[count] = id;
    }
    return products;
  } finally {
    await db.destroy();
  }
}

/**
 * S11 on SQLite + files (`backend` embedded), or S11 on PostgreSQL + S3 + Redis (`scaled`: engines of
 * the bench's own, removed after; the rows S11pg).
 */
export async function benchPaging(
  rounds = 5,
  backend: 'embedded' | 'scaled' = 'embedded',
): Promise<BenchRow[]> {
  const work = mkdtempSync(join(tmpdir(), 'bench-paging-'));
  const children: ChildProcess[] = [];
  const port = backend === 'embedded' ? 4930 : 5620;
  let engines: Engines | undefined;
  try {
    if (backend === 'scaled') engines = await startEngines(work, children);
    const { platformUrl, token, dataDir } = await startBenchPlatform(
      work,
      port,
      engines?.env ?? {},
      children,
    );
    const products = await seedProducts(dataDir, engines?.env ?? {});
    const headers = { authorization: `Bearer ${token}` };
    const url = (count: number) => `${platformUrl}/v2/core/products/${products[count]}`;

    const bytes: Record<number, number> = {};
    for (const count of sizes) {
      const body = await (await fetch(url(count), { headers })).text();
      bytes[count] = Buffer.byteLength(body);
      const { assets } = JSON.parse(body) as { assets: unknown[] };
      if (assets.length !== Math.min(count, 100)) throw new Error(`${count}: ${assets.length} assets read`);
      await latencies(url(count), { headers, ms: 500, loops: 1 }); // Warm-up.
    }
    const p50s: Record<number, number[]> = { 100: [], 10_000: [], 100_000: [] };
    for (let round = 0; round < rounds; round++)
      for (const count of sizes)
        p50s[count]!.push(percentile(await latencies(url(count), { headers, ms: phaseMs, loops: 1 }), 50));

    const p50 = (count: number) => median(p50s[count]!);
    /** Round by round: that round's p50 for `count` assets ÷ its p50 for 100. */
    const perRound = (count: number) => roundRatios(p50s[count]!.map((p, round) => p / p50s[100]![round]!));
    const on = backend === 'embedded' ? 'SQLite' : 'PostgreSQL';
    const id = backend === 'embedded' ? 'S11' : 'S11pg';
    console.log(
      `\npaging (${on}): entity read p50 ${sizes.map((n) => `${n} assets ${p50(n).toFixed(2)} ms`).join(', ')}; ` +
        `answer ${sizes.map((n) => `${(bytes[n]! / 1024).toFixed(1)} KB`).join(' / ')}`,
    );
    return [
      {
        id,
        measure: `${on}: entity read p50, 100 000 assets ÷ 100 (${p50(100_000).toFixed(2)} vs ${p50(100).toFixed(2)} ms)`,
        ratio: p50(100_000) / p50(100),
        spread: perRound(100_000).spread,
        target: '≤ 2',
      },
      {
        id: `${id}m`,
        measure: `${on}: entity read p50, 10 000 assets ÷ 100 (${p50(10_000).toFixed(2)} ms)`,
        ratio: p50(10_000) / p50(100),
        spread: perRound(10_000).spread,
        target: '≤ 2',
      },
    ];
  } finally {
    await stopAll(children);
    await engines?.dispose();
    rmSync(work, { recursive: true, force: true });
  }
}
