import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { markStopping } from './health';
import { childPlatformFixture } from './testing/child-platform';
import { multipartBody, pacedPost } from './testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from './testing/platform-server';
import { uploadsUnderWay } from './testing/storage-state';

/**
 * SIGTERM as a supervisor or a rolling restart sends it: the platform as its own process, an upload
 * in flight, and what its client and a newcomer see.
 */
const graceful = childPlatformFixture('platform-shutdown-', { SHUTDOWN_GRACE_MS: '30000' });
const short = childPlatformFixture('platform-shutdown-short-', { SHUTDOWN_GRACE_MS: '1000' });
afterAll(() => Promise.all([graceful.dispose(), short.dispose()]));

const investment = { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' };
/** About 600 KB, sent over `ms`. */
const slowUpload = (url: string, token: string, ms: number) =>
  pacedPost(
    `${url}/v2/core/assets`,
    token,
    multipartBody(investment, { name: 'slow.csv', bytes: Buffer.from('a,b\n'.repeat(150_000)) }),
    ms,
  );

/** Whether a new connection is taken at all. */
const answers = (url: string) =>
  fetch(`${url}/livez`).then(
    () => true,
    () => false,
  );

describe('SIGTERM', () => {
  it('lets an upload in flight finish, takes no new connection meanwhile, then exits; the upload is kept', async () => {
    const platform = await graceful.start();
    const { access_token } = await tokensFor(platform as TestPlatform, 'issuer@demo.test');
    const upload = slowUpload(platform.url, access_token, 4000);
    await expect.poll(async () => uploadsUnderWay(await graceful.config())).toBe(1);

    const started = performance.now();
    graceful.signal('SIGTERM');
    await expect.poll(() => answers(platform.url)).toBe(false);
    const answer = await upload;
    expect(answer.status).toBe(201);
    // Its connection closes with the answer, said in it: a load balancer keeping connections alive
    // sends no further request on one that the instance is about to close.
    expect(answer.headers.get('connection')).toBe('close');
    const { asset } = (await answer.json()) as { asset: { id: number } };
    expect(await graceful.exited()).toBe(0);
    // Once the upload ended, not at the end of the 30 s grace.
    expect(performance.now() - started).toBeLessThan(20_000);

    // Started again, the platform has the asset its client was told of.
    const again = await graceful.start();
    const read = await fetch(`${again.url}/v2/core/assets/${asset.id}`, { headers: bearer(access_token) });
    expect(read.status).toBe(200);
    await graceful.kill();
  });

  it('cuts what is still in flight at the end of SHUTDOWN_GRACE_MS, and exits', async () => {
    const platform = await short.start();
    const { access_token } = await tokensFor(platform as TestPlatform, 'issuer@demo.test');
    const upload = slowUpload(platform.url, access_token, 60_000).then(
      (answer) => answer.status,
      () => 'cut',
    );
    await expect.poll(async () => uploadsUnderWay(await short.config())).toBe(1);
    const started = performance.now();
    short.signal('SIGTERM');
    expect(await upload).toBe('cut');
    expect(await short.exited()).toBe(0);
    expect(performance.now() - started).toBeLessThan(15_000);
  });

  it('cuts at once on a second SIGTERM', async () => {
    const platform = await graceful.start();
    const { access_token } = await tokensFor(platform as TestPlatform, 'issuer@demo.test');
    const upload = slowUpload(platform.url, access_token, 60_000).then(
      (answer) => answer.status,
      () => 'cut',
    );
    await expect.poll(async () => uploadsUnderWay(await graceful.config())).toBe(1);
    const started = performance.now();
    graceful.signal('SIGTERM');
    await expect.poll(() => answers(platform.url)).toBe(false);
    graceful.signal('SIGTERM');
    expect(await upload).toBe('cut');
    expect(await graceful.exited()).toBe(0);
    // Far within the 30 s grace.
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});

describe('an instance that is stopping', () => {
  let platform: TestPlatform;
  afterEach(() => platform?.close());

  it('answers /readyz 503 at once, whatever its backends say', async () => {
    platform = await startPlatform();
    expect((await fetch(`${platform.url}/readyz`)).status).toBe(200);
    markStopping(platform.app);
    const answer = await fetch(`${platform.url}/readyz`);
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({ status: 'stopping', backends: {} });
  });
});
