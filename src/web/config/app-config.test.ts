import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { http, HttpResponse, mockPlatform, testConfig } from '../testing/platform-double';
import { loadAppConfig } from './app-config';

const server = mockPlatform();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  document.head.innerHTML = '';
});
afterAll(() => server.close());

/** The data block as the proxy fills it in index.html. */
function pageCarries(text: string) {
  const block = document.createElement('script');
  block.type = 'application/json';
  block.id = 'app-config';
  block.textContent = text;
  document.head.append(block);
}

/** Answers /app-config.json, counting the requests. */
function served(config: unknown, status = 200) {
  const asked = { count: 0 };
  server.use(
    http.get(`${window.location.origin}/app-config.json`, () => {
      asked.count += 1;
      return HttpResponse.json(config as Record<string, unknown>, { status });
    }),
  );
  return asked;
}

describe('loadAppConfig', () => {
  it('reads the settings the page carries, without asking the proxy', async () => {
    const asked = served({});
    const config = testConfig({ me: true });
    pageCarries(JSON.stringify(config).replace(/</g, '\\u003c'));
    expect(await loadAppConfig()).toEqual(config);
    expect(asked.count).toBe(0);
  });

  it('fetches /app-config.json when the page carries none (an empty block, or none at all)', async () => {
    const config = testConfig();
    const asked = served(config);
    expect(await loadAppConfig()).toEqual(config);
    pageCarries('');
    expect(await loadAppConfig()).toEqual(config);
    expect(asked.count).toBe(2);
  });

  it('fills in what a proxy does not say: entity paths by the spec, capabilities unknown', async () => {
    const { entityPaths: _paths, capabilities: _capabilities, ...bare } = testConfig();
    pageCarries(JSON.stringify({ ...bare, capabilities: { renditions: true } }));
    const config = await loadAppConfig();
    expect(config.entityPaths.Product).toBe('/v2/core/products/:id');
    expect(config.capabilities.renditions).toBe(true);
    expect(config.capabilities.me).toBeNull();
  });

  it('says which settings are missing, and when they could not be loaded', async () => {
    pageCarries(JSON.stringify({ ...testConfig(), clientId: '' }));
    await expect(loadAppConfig()).rejects.toThrow(/lack clientId/);
    document.head.innerHTML = '';
    served({}, 502);
    await expect(loadAppConfig()).rejects.toThrow(/could not be loaded \(HTTP 502\)/);
  });
});
