import { QueryClient, type InfiniteData } from '@tanstack/react-query';
import { createMemoryRouter } from 'react-router';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { accountQuery, entityFilesQuery, entityKeys } from '../features/entities/api/queries';
import { CapabilityStore } from '../lib/platform/capabilities';
import { FirstResponses } from '../lib/platform/first-responses';
import { createPlatformHttp } from '../lib/platform/http';
import { createPlatform } from '../lib/platform/platform';
import { Session } from '../lib/session';
import {
  appUrl,
  http,
  HttpResponse,
  mockPlatform,
  platformUrl,
  testConfig,
} from '../testing/platform-double';
import type { Account, EntityFiles, EntityRef } from '../lib/platform/model';
import { prefetchFirstPage, routerReady } from './first-paint';
import { firstPageReads, startFirstReads } from './first-reads';
import { appRoutes } from './router';

/**
 * The first page's reads, made as the page starts (main.tsx) rather than once the app's code has run,
 * and taken by the first page's queries into the query cache (performance.md W4).
 */
const server = mockPlatform();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  server.events.removeAllListeners();
});
afterAll(() => server.close());
beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});

const tokenUrl = `${appUrl}/oauth/token`;
const me = { user: { id: 1, email: 'ivy@x.test', name: 'Ivy', role: 'issuer' }, entities: [] };
const product = { product: { id: 7, name: 'Solar' }, assets: [], next_cursor: null };

/** Every request the platform and the proxy's token endpoint saw, in order. */
function recordRequests() {
  const seen: string[] = [];
  server.events.on('request:start', ({ request }) => {
    const url = new URL(request.url);
    seen.push(`${request.method} ${url.origin === platformUrl ? '' : url.origin}${url.pathname}`);
  });
  return seen;
}

/** The proxy renews the session to the token `renewed`; /me answers that token alone, others 401. */
function renewsToAReadableMe() {
  server.use(
    http.post(tokenUrl, () =>
      HttpResponse.json({ access_token: 'renewed', token_type: 'bearer', expires_in: 3600 }),
    ),
    http.get(`${platformUrl}/v2/core/me`, ({ request }) =>
      request.headers.get('authorization') === 'Bearer renewed'
        ? HttpResponse.json(me)
        : new HttpResponse(null, { status: 401 }),
    ),
  );
}

const blank = async () => ({ Component: () => null });
const noPageCode = { review: blank, offerings: blank, entity: blank };

/** The app's pieces as main.tsx and start.tsx build them. */
function app(config = testConfig({ me: true, entityReads: true })) {
  const session = new Session(config);
  const first = new FirstResponses();
  let ended = 0;
  const httpLayer = createPlatformHttp(config, session, () => (ended += 1));
  const platform = createPlatform(config, httpLayer, new CapabilityStore(config.capabilities));
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  /**
   * The app takes over at `path`: its first page's queries start once the session is known, and then
   * its components draw (`drawn`) while the data comes.
   */
  async function firstPage(path: string, drawn: () => void = () => undefined) {
    await session.isSignedIn();
    const services = { config, session, platform, queryClient };
    // The app's routes, as start.tsx makes them, with no page's code: their loaders start the reads.
    const router = createMemoryRouter(appRoutes(services, { first, code: noPageCode }), {
      initialEntries: [path],
    });
    await routerReady(router);
    const loaded = prefetchFirstPage(router, services, first);
    drawn();
    await loaded;
  }
  /** What the pages find in the query cache. */
  const cached = {
    account: () => queryClient.getQueryData<Account | null>(entityKeys.account()),
    entity: (ref: EntityRef) =>
      queryClient.getQueryData<InfiniteData<EntityFiles>>(entityKeys.files(ref))?.pages[0],
  };
  return {
    config,
    session,
    first,
    http: httpLayer,
    platform,
    queryClient,
    firstPage,
    cached,
    ended: () => ended,
  };
}

describe('which reads the first page makes', () => {
  const config = testConfig();
  const at = (path: string) => {
    const url = new URL(path, appUrl);
    return firstPageReads(url, config);
  };

  it('the account on every signed-in page, and the entity on an entity page', () => {
    expect(at('/')).toEqual(['/v2/core/me']);
    expect(at('/offerings')).toEqual(['/v2/core/me']);
    expect(at('/products/7')).toEqual(['/v2/core/me', '/v2/core/products/7']);
    expect(at('/indications-of-interest/3')).toEqual(['/v2/core/me', '/v2/core/indications_of_interest/3']);
  });

  it('no entity where the address names none: an unknown kind, an id that is not a number', () => {
    expect(at('/planets/7')).toEqual(['/v2/core/me']);
    expect(at('/products/seven')).toEqual(['/v2/core/me']);
    expect(at('/products/0')).toEqual(['/v2/core/me']);
    expect(at('/products/7/more')).toEqual(['/v2/core/me']);
  });

  it('nothing where the session must not be touched first: the sign-in callback, a Sign in pressed early', () => {
    expect(at('/auth/callback?code=abc&state=xyz')).toEqual([]);
    expect(at('/?sign-in=')).toEqual([]);
  });

  it('nothing the platform is known not to offer', () => {
    const without = testConfig({ me: false, entityReads: false });
    expect(firstPageReads(new URL('/products/7', appUrl), without)).toEqual([]);
    const unreadable = { ...testConfig(), entityPaths: { ...testConfig().entityPaths, Product: null } };
    expect(firstPageReads(new URL('/products/7', appUrl), unreadable)).toEqual(['/v2/core/me']);
  });
});

describe('the first reads as the page starts', () => {
  const product7 = { type: 'Product', id: 7 } as const;

  it('a tab without a token renews the session and gets the reads along with it, in one round trip', async () => {
    localStorage.setItem('asset-manager.session', '1');
    let asked: string[] = [];
    server.use(
      http.post(tokenUrl, async ({ request }) => {
        asked = new URLSearchParams(await request.text()).getAll('read');
        return HttpResponse.json({
          access_token: 'renewed',
          token_type: 'bearer',
          expires_in: 3600,
          reads: [
            { path: '/v2/core/me', status: 200, content_type: 'application/json', body: JSON.stringify(me) },
            {
              path: '/v2/core/products/7',
              status: 200,
              content_type: 'application/json',
              body: JSON.stringify(product),
            },
          ],
        });
      }),
    );
    const seen = recordRequests();
    const started = app();
    void startFirstReads(['/v2/core/me', '/v2/core/products/7'], started);
    // A page's component asking while the first page's reads are under way shares them.
    let asPageAsks: Promise<Account | null> | undefined;
    await started.firstPage('/products/7', () => {
      asPageAsks = started.queryClient.fetchQuery(accountQuery(started.platform));
    });
    // The answers are in the query cache, under the keys the pages read.
    expect(started.cached.account()?.user.name).toBe('Ivy');
    expect(started.cached.entity(product7)?.name).toBe('Solar');
    expect((await asPageAsks)?.user.name).toBe('Ivy');
    expect(asked).toEqual(['/v2/core/me /v2/core/products/7']);
    expect(seen).toEqual([`POST ${appUrl}/oauth/token`]);
    expect(started.session.signedIn).toBe(true);
  });

  it('lets the app load as soon as the renewal has left, without waiting for its answer', async () => {
    localStorage.setItem('asset-manager.session', '1');
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    let arrived = false;
    server.use(
      http.post(tokenUrl, async () => {
        arrived = true;
        await held;
        return HttpResponse.json({ access_token: 'renewed', token_type: 'bearer', expires_in: 3600 });
      }),
      http.get(`${platformUrl}/v2/core/me`, () => HttpResponse.json(me)),
    );
    const started = app();
    await startFirstReads(['/v2/core/me'], started);
    // The request is on its way (the proxy will see it) while its answer is still held.
    await expect.poll(() => arrived).toBe(true);
    answer();
    await started.firstPage('/');
    expect(started.cached.account()?.user.name).toBe('Ivy');
  });

  it('each answer is taken once: the query read again asks the platform', async () => {
    sessionStorageUser('stored');
    const names = ['Ivy', 'Ivy Renamed'];
    server.use(
      http.get(`${platformUrl}/v2/core/me`, () =>
        HttpResponse.json({ ...me, user: { ...me.user, name: names.shift() } }),
      ),
    );
    const started = app();
    void startFirstReads(['/v2/core/me'], started);
    await started.firstPage('/');
    expect(started.cached.account()?.user.name).toBe('Ivy');
    await started.queryClient.refetchQueries({ queryKey: entityKeys.account() });
    expect(started.cached.account()?.user.name).toBe('Ivy Renamed');
  });

  it('with a usable token in the tab, reads the platform at once with it, without a renewal', async () => {
    sessionStorageUser('stored');
    const tokens: (string | null)[] = [];
    server.use(
      http.get(`${platformUrl}/v2/core/me`, ({ request }) => {
        tokens.push(request.headers.get('authorization'));
        return HttpResponse.json(me);
      }),
    );
    const seen = recordRequests();
    const started = app();
    void startFirstReads(['/v2/core/me'], started);
    await started.firstPage('/');
    expect(started.cached.account()?.user.name).toBe('Ivy');
    expect(tokens).toEqual(['Bearer stored']);
    expect(seen).toEqual(['GET /v2/core/me']);
  });

  it('a proxy that does not read along: the reads go to the platform with the renewed token', async () => {
    localStorage.setItem('asset-manager.session', '1');
    renewsToAReadableMe();
    const seen = recordRequests();
    const started = app();
    void startFirstReads(['/v2/core/me'], started);
    await started.firstPage('/');
    expect(started.cached.account()?.user.name).toBe('Ivy');
    expect(seen).toEqual([`POST ${appUrl}/oauth/token`, 'GET /v2/core/me']);
  });

  it('a read answered 401 is renewed and asked again by the query that takes it, as any answer', async () => {
    sessionStorageUser('revoked-meanwhile');
    localStorage.setItem('asset-manager.session', '1');
    renewsToAReadableMe();
    const started = app();
    void startFirstReads(['/v2/core/me'], started);
    await started.firstPage('/');
    expect(started.cached.account()?.user.name).toBe('Ivy');
    expect(started.ended()).toBe(0);
  });

  it('signed out: nothing is asked, and the page is not told its session ended', async () => {
    const seen = recordRequests();
    const started = app();
    void startFirstReads(['/v2/core/me'], started);
    await started.firstPage('/');
    expect(started.cached.account()).toBeUndefined();
    expect(seen).toEqual([]);
    expect(started.ended()).toBe(0);
  });

  it('answers the first page did not take are dropped: a later page asks afresh', async () => {
    sessionStorageUser('stored');
    let reads = 0;
    server.use(
      http.get(`${platformUrl}/v2/core/me`, () => HttpResponse.json(me)),
      http.get(`${platformUrl}/v2/core/products/7`, () => {
        reads += 1;
        return HttpResponse.json({ ...product, product: { ...product.product, name: `Solar ${reads}` } });
      }),
    );
    const started = app();
    void startFirstReads(['/v2/core/me', '/v2/core/products/7'], started);
    await expect.poll(() => reads).toBe(1);
    // The app took over on the start page, which reads no product.
    await started.firstPage('/');
    expect(started.cached.entity(product7)).toBeUndefined();
    const later = await started.queryClient.fetchInfiniteQuery(
      entityFilesQuery(started.platform, product7, started.first),
    );
    expect(later.pages[0]?.name).toBe('Solar 2');
  });
});

/** A tab that holds a usable access token already (oidc-client-ts's user store, as the Session keeps it). */
function sessionStorageUser(token: string) {
  const config = testConfig();
  sessionStorage.setItem(
    `oidc.user:${config.platformAuthUrl}:${config.clientId}`,
    JSON.stringify({
      access_token: token,
      token_type: 'bearer',
      profile: {},
      expires_at: Math.floor(Date.now() / 1000) + 3600,
    }),
  );
}
