import { request as httpRequest } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetEnvelopeSchema } from '../../shared/assets/asset';
import { problemSchema } from '../../shared/api/problem';
import { meSchema } from '../../shared/api/me';
import { csv, multipartBody } from '../testing/files';
import { deckPdf } from '../testing/pdf-files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { storageState, uploadsUnderWay } from '../testing/storage-state';
import { pollUntil } from '../testing/thumbnails';

/** What the platform logs, one parsed line each. */
const logLines: { level: number; msg: string; err?: unknown }[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      logLines.push(JSON.parse(line) as (typeof logLines)[number]);
    done();
  },
});

let platform: TestPlatform;
let issuer: string;
beforeAll(async () => {
  platform = await startPlatform(
    {
      // The upload time limit, after which a key still in progress is given up (H7): short enough for
      // the test clock to pass it without expiring the access token.
      REQUEST_TIMEOUT_MS: '120000',
      // The held uploads pause for as long as a test needs on a busy machine: never cut off as too
      // slow meanwhile (the rate check runs on the real clock, not the test's).
      UPLOAD_RATE_WINDOW_MS: '600000',
    },
    // Debug: a dropped thumbnail render says so only there.
    { logger: { level: 'debug', stream: logStream } },
  );
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
});
afterAll(() => platform.close());

const boundary = 'interrupted';
const csvFields = { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' };
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);

/** An upload whose body this test sends by hand; it starts with the fields and the file's head. */
function heldUpload(
  headers: Record<string, string>,
  fileBytes: Buffer,
  { fields, fileName } = { fields: csvFields, fileName: 'held.csv' },
) {
  const head = Buffer.from(
    Object.entries(fields)
      .map(
        ([name, value]) =>
          `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      )
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${fileName}"\r\n\r\n`,
  );
  const request = httpRequest(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: {
      ...bearer(issuer),
      ...headers,
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + fileBytes.length + tail.length),
    },
  });
  request.on('error', () => {});
  const answer = new Promise<{ status: number; body: string }>((resolve) =>
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    }),
  );
  request.write(Buffer.concat([head, fileBytes.subarray(0, 1000)]));
  return { request, answer, rest: Buffer.concat([fileBytes.subarray(1000), tail]) };
}

describe('H12 a client that goes away mid-upload', () => {
  it('H12 is logged as one info line, with no error and no stack trace (U7: nothing kept)', async () => {
    const before = await storageState(platform.config);
    logLines.length = 0;
    const upload = heldUpload({}, Buffer.alloc(1_000_000, 'a'));
    upload.request.write(Buffer.alloc(200_000, 'a'));
    await expect.poll(() => uploadsUnderWay(platform.config)).toBe(1);
    upload.request.destroy();
    await expect.poll(async () => (await storageState(platform.config)).temporary).toBe(0);
    await expect.poll(() => logLines.some((line) => /cancel/i.test(line.msg))).toBe(true);

    const cancelled = logLines.filter((line) => /cancel/i.test(line.msg));
    expect(cancelled).toHaveLength(1);
    expect(cancelled[0]!.level).toBe(30);
    expect(logLines.filter((line) => line.level >= 40)).toEqual([]);
    expect(JSON.stringify(logLines)).not.toContain('stack');
    const after = await storageState(platform.config);
    expect([after.rows, after.files]).toEqual([before.rows, before.files]);
  });
});

describe('H7 an Idempotency-Key whose request outlived the upload time limit', () => {
  it('H7 is taken over by a retry past the limit; the late first request then makes no second asset', async () => {
    const key = { 'idempotency-key': `stuck-${Date.now()}` };
    const bytes = csv();
    const send = () =>
      fetch(`${platform.url}/v2/core/assets`, {
        method: 'POST',
        headers: { ...bearer(issuer), ...key },
        body: multipartBody(
          { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
          { name: 'held.csv', bytes },
        ),
      });
    // The first request stalls after the file's first bytes: its key is in progress.
    const first = heldUpload(key, bytes);
    await expect.poll(() => uploadsUnderWay(platform.config)).toBe(1);

    // Within the limit, a retry is told that the first one still runs.
    const early = await send();
    expect(early.status).toBe(409);
    expect(problemSchema.parse(await early.json()).code).toBe('request_in_progress');
    // With when to ask again, as a 429 says it.
    expect(early.headers.get('retry-after')).toMatch(/^[1-5]$/);

    // Past it, the retry takes the key over and makes the asset.
    platform.advance(121_000);
    const retried = await send();
    expect(retried.status, await retried.clone().text()).toBe(201);
    const asset = assetEnvelopeSchema.parse(await retried.json()).asset;

    // The stalled first request finally completes: it lost its key, so it makes nothing.
    first.request.end(first.rest);
    const late = await first.answer;
    expect(late.status, late.body).toBe(409);
    const replay = await send();
    expect(replay.status).toBe(201);
    expect(assetEnvelopeSchema.parse(await replay.json()).asset.id).toBe(asset.id);
    const list = (await (
      await fetch(`${platform.url}/v2/core/investments/1/assets`, { headers: bearer(issuer) })
    ).json()) as { assets: { name: string }[] };
    expect(list.assets.filter((a) => a.name === 'held.csv')).toHaveLength(1);
    await expect.poll(async () => (await storageState(platform.config)).temporary).toBe(0);
    const state = await storageState(platform.config);
    expect(state.fileNames.every((name) => state.rowKeys.includes(name))).toBe(true);
  });

  it('H7 with a pitch deck: the thumbnail render the late request began once its PDF was stored is dropped with it', async () => {
    const me = meSchema.parse(
      await (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(issuer) })).json(),
    );
    const productId = String(me.entities.find((e) => e.type === 'Product')!.id);
    const fields = { file_type: 'pitch_deck', assetable_type: 'Product', assetable_id: productId };
    const key = { 'idempotency-key': `stuck-deck-${Date.now()}` };
    const bytes = deckPdf(3);
    const first = heldUpload(key, bytes, { fields, fileName: 'held.pdf' });
    await expect.poll(() => uploadsUnderWay(platform.config)).toBe(1);

    // Past the limit, a retry takes the key over and makes the asset and its thumbnail.
    platform.advance(121_000);
    const retried = await fetch(`${platform.url}/v2/core/assets`, {
      method: 'POST',
      headers: { ...bearer(issuer), ...key },
      body: multipartBody(fields, { name: 'held.pdf', bytes, type: 'application/pdf' }),
    });
    expect(retried.status, await retried.clone().text()).toBe(201);
    const asset = assetEnvelopeSchema.parse(await retried.json()).asset;
    const thumbnail = await pollUntil("the retry's thumbnail to be made", async () => {
      const body = (await (
        await fetch(`${platform.url}/v2/core/assets/${asset.thumbnail_id}`, { headers: bearer(issuer) })
      ).json()) as { asset?: { pending?: boolean; size?: number } };
      return body.asset && !body.asset.pending ? body.asset : undefined;
    });
    expect(thumbnail.size).toBeGreaterThan(0);

    // The stalled first request completes with every worker free: its PDF is stored and its
    // thumbnail's render begins before the key it lost fails its rows. It answers 409, and its
    // render is dropped: no thumbnail row, no PNG, no PDF left behind for it.
    logLines.length = 0;
    first.request.end(first.rest);
    const late = await first.answer;
    expect(late.status, late.body).toBe(409);
    await expect
      .poll(() =>
        logLines.some((line) => line.msg === 'PDF thumbnail render dropped: its upload was not kept'),
      )
      .toBe(true);
    const list = (await (
      await fetch(`${platform.url}/v2/core/products/${productId}/assets`, { headers: bearer(issuer) })
    ).json()) as { assets: { name: string; thumbnail_id?: string }[] };
    expect(list.assets.filter((a) => a.name === 'held.pdf')).toEqual([
      expect.objectContaining({ thumbnail_id: asset.thumbnail_id }),
    ]);
    const state = await storageState(platform.config);
    expect(state.pendingKeys).toEqual([]);
    expect(state.temporary).toBe(0);
    expect(state.fileNames.every((name) => state.rowKeys.includes(name))).toBe(true);
    expect(state.rowKeys.every((name) => state.fileNames.includes(name))).toBe(true);
  });
});
