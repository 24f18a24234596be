import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csv, multipartBody, pdf } from './testing/files';
import { bearer, freePort, startPlatform, tokensFor, type TestPlatform } from './testing/platform-server';
import { tusTestEnv, tusUpload } from './testing/tus-client';

/** The value of one series in Prometheus text (`name{labels} value`), 0 when it is not there yet. */
function sample(text: string, series: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : 0;
}

const listeningServers = () =>
  process.getActiveResourcesInfo().filter((resource) => resource === 'TCPServerWrap').length;

describe('metrics on METRICS_PORT', () => {
  let platform: TestPlatform;
  let metricsUrl: string;
  let token: string;
  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    platform = await startPlatform({ METRICS_PORT: String(port), ...tusTestEnv() });
    token = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  });
  afterAll(() => platform?.close());
  const scrape = async () => {
    const answer = await fetch(metricsUrl);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return answer.text();
  };

  it('counts requests by route pattern and status, never by raw path', async () => {
    const read = 'http_requests_total{method="GET",route="/v2/core/assets/:id",status="404"}';
    const refused = 'http_requests_total{method="GET",route="/v2/core/assets/:id",status="401"}';
    const before = await scrape();
    for (const id of [900001, 900002, 900003])
      expect((await fetch(`${platform.url}/v2/core/assets/${id}`, { headers: bearer(token) })).status).toBe(
        404,
      );
    expect((await fetch(`${platform.url}/v2/core/assets/900004`)).status).toBe(401);
    const after = await scrape();
    expect(sample(after, read) - sample(before, read)).toBe(3);
    expect(sample(after, refused) - sample(before, refused)).toBe(1);
    expect(after).not.toContain('900001');
    // The latency histogram counted the same requests.
    const timed = 'http_request_duration_seconds_count{method="GET",route="/v2/core/assets/:id"}';
    expect(sample(after, timed) - sample(before, timed)).toBe(4);
    expect(after).toMatch(
      /http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/v2\/core\/assets\/:id"\}/,
    );
  });

  it('counts uploads and the bytes they brought, and says none is in flight after', async () => {
    const before = await scrape();
    const form = multipartBody(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name: 'figures.csv', bytes: csv(), type: 'text/csv' },
    );
    const answer = await fetch(`${platform.url}/v2/core/assets`, {
      method: 'POST',
      headers: bearer(token),
      body: form,
    });
    expect(answer.status).toBe(201);
    await expect
      .poll(async () => sample(await scrape(), 'platform_upload_bytes_total'))
      .toBeGreaterThan(sample(before, 'platform_upload_bytes_total') + csv().length);
    const after = await scrape();
    expect(sample(after, 'platform_uploads_in_flight')).toBe(0);
    const created = 'http_requests_total{method="POST",route="/v2/core/assets",status="201"}';
    expect(sample(after, created) - sample(before, created)).toBe(1);
  });

  it('counts a resumable upload by the bytes each of its requests added', async () => {
    const before = await scrape();
    const bytes = Buffer.concat([csv(), Buffer.alloc(300_000, '1,2,3\n')]);
    let patches = 0;
    const { done } = tusUpload(
      platform.url,
      token,
      bytes,
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1', name: 'big.csv' },
      { chunkSize: 128 * 1024, onBeforeRequest: (req) => void (req.getMethod() === 'PATCH' && patches++) },
    );
    expect((await done).status).toBe(200);
    expect(patches).toBeGreaterThan(1);
    const counted = async () =>
      sample(await scrape(), 'platform_upload_bytes_total') - sample(before, 'platform_upload_bytes_total');
    await expect.poll(counted).toBe(bytes.length);
    expect(sample(await scrape(), 'platform_uploads_in_flight')).toBe(0);
  });

  it('counts a PDF thumbnail made', async () => {
    const me = (await (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(token) })).json()) as {
      entities: { type: string; id: number }[];
    };
    const product = me.entities.find((entity) => entity.type === 'Product')!;
    const made = 'platform_thumbnails_total{outcome="made"}';
    const before = sample(await scrape(), made);
    const answer = await fetch(`${platform.url}/v2/core/assets`, {
      method: 'POST',
      headers: bearer(token),
      body: multipartBody(
        { file_type: 'pitch_deck', assetable_type: 'Product', assetable_id: String(product.id) },
        { name: 'deck.pdf', bytes: await pdf(), type: 'application/pdf' },
      ),
    });
    expect(answer.status).toBe(201);
    // A render on a busy machine: seconds.
    await expect.poll(async () => sample(await scrape(), made), { timeout: 60_000 }).toBe(before + 1);
  }, 90_000);

  it('shows the process, the thumbnail queue and the storage series', async () => {
    const text = await scrape();
    for (const name of [
      'process_cpu_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_eventloop_lag_seconds',
      'platform_thumbnail_queue{state="waiting"}',
      'platform_thumbnail_queue{state="running"}',
    ])
      expect(text).toContain(name);
    for (const help of [
      'platform_blob_store_errors_total',
      'platform_thumbnails_total',
      'platform_storage_sweeps_total',
    ])
      expect(text).toContain(`# HELP ${help}`);
    if (platform.config.database.url) expect(text).toContain('platform_db_pool_connections{state="idle"}');
    if (platform.config.redis) expect(sample(text, 'platform_redis_connected')).toBe(1);
  });

  it('are not served on the API port', async () => {
    expect((await fetch(`${platform.url}/metrics`)).status).toBe(404);
  });
});

describe('without METRICS_PORT', () => {
  it('listens on the API port only', async () => {
    const before = listeningServers();
    const withMetrics = await startPlatform({ METRICS_PORT: String(await freePort()) });
    const both = listeningServers() - before;
    await withMetrics.close();
    const platform = await startPlatform();
    try {
      expect(both).toBe(2);
      expect(listeningServers() - before).toBe(1);
    } finally {
      await platform.close();
    }
  });
});
