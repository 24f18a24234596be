import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  appUrl,
  http,
  HttpResponse,
  platformDouble,
  platformUrl,
  testConfig,
} from '../testing/platform-double';
import { entityKeys } from '../features/entities/api/queries';
import { renderRoutes, testServices } from '../testing/render';
import { appRoutes, pageCode } from './router';

/**
 * The app's routes as start.tsx makes them: each signed-in page's loader starts the page's reads into
 * the query cache, so they travel while the page's own code (a chunk of its own) loads.
 */
const server = platformDouble();

beforeEach(() => {
  localStorage.clear();
  sessionStorage.clear();
});
afterEach(() => server.events.removeAllListeners());

const me = { user: { id: 1, email: 'ivy@x.test', name: 'Ivy', role: 'admin' }, entities: [] };

/** A tab of a signed-in browser: the proxy renews the session through its cookie. */
function signedIn() {
  localStorage.setItem('asset-manager.session', '1');
  server.use(
    http.post(`${appUrl}/oauth/token`, () =>
      HttpResponse.json({ access_token: 'renewed', token_type: 'bearer', expires_in: 3600 }),
    ),
    http.get(`${platformUrl}/v2/core/me`, () => HttpResponse.json(me)),
  );
}

/** Every request the platform saw (method, path and query), in order, and the answers it gave. */
function recordRequests() {
  const asked: string[] = [];
  const answered: string[] = [];
  const name = (request: Request) => {
    const url = new URL(request.url);
    return `${request.method} ${url.pathname}${url.search}`;
  };
  server.events.on('request:start', ({ request }) => asked.push(name(request)));
  server.events.on('response:mocked', ({ request }) => answered.push(name(request)));
  return { asked, answered };
}

/** The pages' code, held back until the test lets it come: what starts before it is the loader's doing. */
function heldPageCode() {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const after =
    <T,>(load: () => Promise<T>) =>
    async () => {
      await held;
      return load();
    };
  const code = {
    review: after(pageCode.review),
    offerings: after(pageCode.offerings),
    entity: after(pageCode.entity),
  };
  return { code, release };
}

describe('a signed-in page’s loader', () => {
  it('asks for the entity while the page’s code is still loading, and the page draws it from the cache', async () => {
    signedIn();
    server.use(
      http.get(`${platformUrl}/v2/core/products/7`, () =>
        HttpResponse.json({ product: { id: 7, name: 'Solar' }, assets: [], next_cursor: null }),
      ),
    );
    const requests = recordRequests();
    const { code, release } = heldPageCode();
    const services = testServices();
    renderRoutes(appRoutes(services, { code }), '/products/7', services);

    // Answered while the page's code has not come yet.
    await waitFor(() => expect(requests.answered).toContain('GET /v2/core/products/7'));
    release();
    expect(await screen.findByRole('heading', { level: 1, name: 'Product Solar' })).toBeTruthy();
    // Drawn from what the loader put in the cache: not read again as the page mounted.
    expect(services.queryClient.isFetching({ queryKey: entityKeys.files({ type: 'Product', id: 7 }) })).toBe(
      0,
    );
    // The user menu's account (the layout's own read) has come too: nothing is left under way.
    expect(await screen.findByText(/ivy@x\.test/)).toBeTruthy();
    expect(requests.asked.filter((r) => r === 'GET /v2/core/products/7')).toHaveLength(1);
  });

  it('an entity that is not there: the page says so itself, not the route’s error page', async () => {
    signedIn();
    server.use(
      http.get(`${platformUrl}/v2/core/products/7`, () =>
        HttpResponse.json({ errors: ['Not found'] }, { status: 404 }),
      ),
    );
    const services = testServices(testConfig({ me: true, entityReads: true }));
    renderRoutes(appRoutes(services), '/products/7', services);
    expect(await screen.findByRole('heading', { name: 'This product could not be opened' })).toBeTruthy();
    expect(screen.queryByText('Something went wrong')).toBeNull();
    expect(await screen.findByText(/ivy@x\.test/)).toBeTruthy();
  });

  it('asks for the offerings while the page’s code is still loading', async () => {
    signedIn();
    server.use(
      http.get(`${platformUrl}/v2/core/products`, () =>
        HttpResponse.json({ products: [{ id: 7, name: 'Solar', logo_asset_id: null }], next_cursor: null }),
      ),
    );
    const requests = recordRequests();
    const { code, release } = heldPageCode();
    const services = testServices();
    renderRoutes(appRoutes(services, { code }), '/offerings', services);

    await waitFor(() => expect(requests.answered).toContain('GET /v2/core/products'));
    release();
    expect(await screen.findByRole('link', { name: /Solar/ })).toBeTruthy();
    expect(requests.asked.filter((r) => r === 'GET /v2/core/products')).toHaveLength(1);
    expect(await screen.findByText(/ivy@x\.test/)).toBeTruthy();
  });

  it('asks for the review list the address names while the page’s code is still loading', async () => {
    signedIn();
    server.use(
      http.get(`${platformUrl}/v2/core/accreditations`, () =>
        HttpResponse.json({ accreditations: [], next_cursor: null }),
      ),
    );
    const requests = recordRequests();
    const { code, release } = heldPageCode();
    const services = testServices();
    renderRoutes(appRoutes(services, { code }), '/review?show=decided&q=ann', services);

    await waitFor(() =>
      expect(requests.answered.some((r) => r.startsWith('GET /v2/core/accreditations?'))).toBe(true),
    );
    const asked = requests.asked.filter((r) => r.startsWith('GET /v2/core/accreditations?'));
    release();
    expect(
      await screen.findByText(/No accreditation was decided for an investor matching “ann”/),
    ).toBeTruthy();
    expect(requests.asked.filter((r) => r.startsWith('GET /v2/core/accreditations?'))).toEqual(asked);
    expect(asked).toHaveLength(1);
    expect(await screen.findByText(/ivy@x\.test/)).toBeTruthy();
  });

  it('a tab of the review queue shown again reads its list afresh, however recently it was read', async () => {
    signedIn();
    const queue = { waiting: 0 };
    server.use(
      http.get(`${platformUrl}/v2/core/accreditations`, () =>
        HttpResponse.json({
          accreditations: [],
          next_cursor: null,
          counts: { documents_needed: 0, pending: queue.waiting, approved: 0, rejected: 0 },
        }),
      ),
    );
    const requests = recordRequests();
    const user = userEvent.setup();
    const services = testServices();
    renderRoutes(appRoutes(services), '/review', services);
    expect(await screen.findByRole('link', { name: 'Waiting (0)' })).toBeTruthy();
    await user.click(screen.getByRole('link', { name: /^Decided/ }));
    expect(await screen.findByText('No decisions yet. Decided accreditations appear here.')).toBeTruthy();

    // An investor sends their documents meanwhile; the admin goes back to the queue at once.
    queue.waiting = 1;
    await user.click(screen.getByRole('link', { name: /^Waiting/ }));
    expect(await screen.findByText('The queue is empty: nothing waits for a decision.')).toBeTruthy();
    expect(await screen.findByRole('link', { name: 'Waiting (1)' })).toBeTruthy();
    // Once for each time the queue was shown.
    expect(requests.asked.filter((r) => r.includes('status=pending'))).toHaveLength(2);
  });

  it('signed out: sends the visitor to sign in and asks the platform nothing', async () => {
    const requests = recordRequests();
    const services = testServices();
    const signIn = vi.spyOn(services.session, 'signIn').mockResolvedValue();
    renderRoutes(appRoutes(services), '/products/7', services);
    await waitFor(() => expect(signIn).toHaveBeenCalledWith('/products/7'));
    expect(requests.asked.filter((r) => r.includes('/v2/'))).toEqual([]);
  });
});
