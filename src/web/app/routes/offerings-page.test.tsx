import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { http, HttpResponse, platformDouble, platformUrl, testConfig } from '../../testing/platform-double';
import { renderRoutes, testServices } from '../../testing/render';
import { OfferingsPage } from './offerings-page';

/** The offerings as an investor browses them: our platform's paged list, or the way in by number. */
const server = platformDouble();

const routes = [
  { path: '/offerings', element: <OfferingsPage /> },
  { path: '/:kind/:id', element: <p>A product page</p> },
];
/** Our platform, which makes renditions: logos come as small cropped images. */
const withRenditions = () => testServices(testConfig({ renditions: true }));

type Product = { id: number; name: string; logo_asset_id: number | null };
const product = (id: number, name: string, logo: number | null = null): Product => ({
  id,
  name,
  logo_asset_id: logo,
});

/** `GET /v2/core/products` answering the given pages, chained by cursors; what it was asked is kept. */
function productPages(...pages: Product[][]) {
  const asked: (string | null)[] = [];
  server.use(
    http.get(`${platformUrl}/v2/core/products`, ({ request }) => {
      const cursor = new URL(request.url).searchParams.get('cursor');
      asked.push(cursor);
      const index = cursor === null ? 0 : Number(cursor.replace('page-', ''));
      const next = index + 1 < pages.length ? `page-${index + 1}` : null;
      return HttpResponse.json({ products: pages[index] ?? [], next_cursor: next });
    }),
    http.get(`${platformUrl}/v2/core/assets/:id/download_url`, ({ params, request }) =>
      HttpResponse.json({ url: `https://files.test/${params.id as string}${new URL(request.url).search}` }),
    ),
  );
  return asked;
}

/** Each offering's link: its name (the logo beside it is decorative) and where it leads. */
const offeringLinks = () =>
  within(screen.getByRole('list', { name: 'Offerings' }))
    .getAllByRole('link')
    .map((link) => [link.querySelector('.offering-name')?.textContent, link.getAttribute('href')]);

describe('the offerings page', () => {
  it('lists the products with their logos, each name leading to its page', async () => {
    productPages([product(9, 'Solar Farm Fund I', 31), product(8, 'Harbor Street Lofts')]);
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, '/offerings', withRenditions());
    expect(await screen.findByRole('heading', { name: 'Offerings' })).toBeTruthy();
    await screen.findByRole('list', { name: 'Offerings' });
    expect(offeringLinks()).toEqual([
      ['Solar Farm Fund I', '/products/9'],
      ['Harbor Street Lofts', '/products/8'],
    ]);
    const [solar, harbor] = within(screen.getByRole('list', { name: 'Offerings' })).getAllByRole('link');
    // The logo is the small cropped rendition; decorative, since the name beside it says what it is.
    await waitFor(() =>
      expect(solar!.querySelector('img')?.getAttribute('src')).toBe(
        'https://files.test/31?variant=cropped&width=160',
      ),
    );
    expect(solar!.querySelector('img')?.getAttribute('alt')).toBe('');
    // No logo: the initial on a neutral tile, never a broken image.
    expect(harbor!.querySelector('img')).toBeNull();
    expect(harbor!.querySelector('.offering-initial')?.textContent).toBe('H');
    expect(screen.getByText('All 2 offerings are shown.')).toBeTruthy();
    expect(screen.queryByRole('button', { name: 'Show more' })).toBeNull();

    await user.click(solar!);
    await waitFor(() => expect(router.state.location.pathname).toBe('/products/9'));
  });

  it('shows a logo that does not load as the initial instead', async () => {
    productPages([product(9, 'solar', 31)]);
    renderRoutes(routes, '/offerings', withRenditions());
    const list = await screen.findByRole('list', { name: 'Offerings' });
    const image = await waitFor(() => {
      const shown = within(list).getByRole('link').querySelector('img');
      expect(shown).not.toBeNull();
      return shown!;
    });
    fireEvent.error(image);
    await waitFor(() => expect(within(list).getByRole('link').querySelector('img')).toBeNull());
    expect(within(list).getByRole('link').querySelector('.offering-initial')?.textContent).toBe('S');
  });

  it('shows more a page at a time, and moves focus to the first new offering', async () => {
    const asked = productPages(
      [product(9, 'Nine'), product(8, 'Eight')],
      [product(7, 'Seven'), product(6, 'Six')],
      [product(5, 'Five')],
    );
    const user = userEvent.setup();
    renderRoutes(routes, '/offerings');
    await screen.findByRole('list', { name: 'Offerings' });
    expect(offeringLinks().map(([name]) => name)).toEqual(['Nine', 'Eight']);

    await user.click(screen.getByRole('button', { name: 'Show more' }));
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('link', { name: 'Seven' })));
    expect(offeringLinks().map(([name]) => name)).toEqual(['Nine', 'Eight', 'Seven', 'Six']);

    // With the keyboard, from where focus was left: the last page, and the end of the list says so.
    screen.getByRole('button', { name: 'Show more' }).focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('link', { name: 'Five' })));
    expect(screen.queryByRole('button', { name: 'Show more' })).toBeNull();
    expect(screen.getByText('All 5 offerings are shown.')).toBeTruthy();
    expect(asked).toEqual([null, 'page-1', 'page-2']);
  });

  it('says when a further page fails, keeps what is shown, and tries again', async () => {
    productPages([product(9, 'Nine')], [product(8, 'Eight')]);
    let failures = 1;
    server.use(
      http.get(`${platformUrl}/v2/core/products`, ({ request }) => {
        if (new URL(request.url).searchParams.get('cursor') === null || failures-- <= 0) return undefined;
        return HttpResponse.json(
          { type: 'about:blank', title: 'Busy', status: 503, code: 'unavailable', detail: 'Busy' },
          { status: 503 },
        );
      }),
    );
    const user = userEvent.setup();
    renderRoutes(routes, '/offerings');
    await user.click(await screen.findByRole('button', { name: 'Show more' }));
    expect((await screen.findByRole('alert')).textContent).toBe(
      'More offerings could not be loaded. The platform had a problem. Please try again in a moment.',
    );
    expect(offeringLinks().map(([name]) => name)).toEqual(['Nine']);
    const retry = screen.getByRole('button', { name: 'Try again' });
    expect(document.activeElement).toBe(retry);
    await user.click(retry);
    await waitFor(() => expect(document.activeElement).toBe(screen.getByRole('link', { name: 'Eight' })));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('says so when there is nothing to show', async () => {
    productPages([]);
    renderRoutes(routes, '/offerings');
    expect(
      await screen.findByText(
        'No offerings to show yet. When issuers put products on the platform, they appear here.',
      ),
    ).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Offerings' })).toBeNull();
  });

  it('says in plain words when the list cannot be loaded, and Try again loads it', async () => {
    let down = true;
    server.use(
      http.get(`${platformUrl}/v2/core/products`, () =>
        down
          ? HttpResponse.error()
          : HttpResponse.json({ products: [product(9, 'Nine')], next_cursor: null }),
      ),
    );
    const user = userEvent.setup();
    renderRoutes(routes, '/offerings');
    const notice = await screen.findByRole('alert');
    expect(within(notice).getByRole('heading').textContent).toBe('The offerings could not be loaded');
    // The page came from the app's own server and the browser is online: the platform is what failed.
    expect(notice.textContent).toContain('The platform is not answering. Try again in a moment.');
    down = false;
    await user.click(within(notice).getByRole('button', { name: 'Try again' }));
    await screen.findByRole('list', { name: 'Offerings' });
    expect(offeringLinks()).toEqual([['Nine', '/products/9']]);
  });

  it('C1: on a platform that lists no offerings, opens a product by its number instead', async () => {
    server.use(
      http.get(`${platformUrl}/v2/core/products`, () =>
        HttpResponse.json({ errors: ['Not found'] }, { status: 404 }),
      ),
    );
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, '/offerings');
    expect(await screen.findByText(/^This platform does not list its offerings/)).toBeTruthy();
    expect(document.body.textContent).not.toMatch(/do not have access|permission|could not be loaded/i);
    // Products first: that is what an offering is.
    expect((screen.getByLabelText('What to open') as HTMLSelectElement).value).toBe('Product');
    await user.type(screen.getByLabelText('Number'), '12{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/products/12'));
  });
});
