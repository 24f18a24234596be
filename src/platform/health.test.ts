import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './testing/platform-server';
import { testWithRedis } from './testing/redis';

/** The probes a load balancer or Kubernetes uses (docs/deploy.md), on a platform whose backends are all up. */
let platform: TestPlatform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(async () => {
  await platform?.close();
});

const get = (path: string) => fetch(`${platform.url}${path}`);

describe('health probes', () => {
  it('says the process is alive on /livez, and on /healthz as before', async () => {
    for (const path of ['/livez', '/healthz']) {
      const answer = await get(path);
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ status: 'ok' });
    }
  });

  it('says it is ready on /readyz, naming each backend it uses and its state', async () => {
    const answer = await get('/readyz');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(await answer.json()).toEqual({
      status: 'ready',
      backends: { database: 'up', blob_store: 'up', ...(testWithRedis ? { redis: 'up' } : {}) },
    });
  });
});
