import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { http, HttpResponse, platformDouble, platformUrl, testConfig } from '../../testing/platform-double';
import { renderRoutes, testServices } from '../../testing/render';
import { EntityPage } from './entity-page';
import { HomePage } from './home-page';

/** The signed-in start page: what the person owns, where their accreditations stand, the offerings. */
const server = platformDouble();

const routes = [
  { path: '/', loader: () => ({ signedIn: true }), element: <HomePage /> },
  { path: '/offerings', element: <h1>The offerings</h1> },
  { path: '/:kind/:id', element: <EntityPage /> },
];

function account(role: string, entities: Record<string, unknown>[]) {
  server.use(
    http.get(`${platformUrl}/v2/core/me`, () =>
      HttpResponse.json({ user: { id: 1, email: 'ivy@x.test', name: 'Ivy', role }, entities }),
    ),
  );
}

const accreditations = () => screen.findByRole('region', { name: 'Accreditations' });

describe('the home page', () => {
  it("shows each accreditation's review status beside it, as the account list gives it", async () => {
    account('investor', [
      { type: 'Accreditation', id: 3, name: 'Waiting one', status: 'pending' },
      { type: 'Accreditation', id: 4, name: 'Good one', status: 'approved' },
      { type: 'Accreditation', id: 5, name: 'Refused one', status: 'rejected' },
    ]);
    renderRoutes(routes, '/');
    const items = within(await accreditations()).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual([
      'Waiting one Review: Waiting for review',
      'Good one Review: Approved',
      'Refused one Review: Rejected',
    ]);
    // The link is the accreditation's name alone; the status is beside it.
    expect(within(items[2]!).getByRole('link').textContent).toBe('Refused one');
  });

  it('reads the status from the accreditation itself where the account list does not carry it', async () => {
    account('investor', [{ type: 'Accreditation', id: 3, name: 'Mine' }]);
    server.use(
      http.get(`${platformUrl}/v2/core/accreditations/3`, () =>
        HttpResponse.json({ accreditation: { id: 3, name: 'Mine', status: 'rejected' }, assets: [] }),
      ),
    );
    renderRoutes(routes, '/');
    const list = await accreditations();
    await waitFor(() => expect(within(list).getByRole('listitem').textContent).toBe('Mine Review: Rejected'));
  });

  it('shows no status where the platform says none', async () => {
    account('investor', [{ type: 'Accreditation', id: 3, name: 'Mine' }]);
    let reads = 0;
    server.use(
      http.get(`${platformUrl}/v2/core/accreditations/3`, () => {
        reads += 1;
        return HttpResponse.json({ accreditation: { id: 3, name: 'Mine' }, assets: [] });
      }),
    );
    renderRoutes(routes, '/');
    const list = await accreditations();
    await waitFor(() => expect(reads).toBe(1));
    expect(within(list).getByRole('listitem').textContent).toBe('Mine');
  });

  it('never says other than the accreditation page: a status that moved on is read again', async () => {
    let listed = 'rejected';
    server.use(
      http.get(`${platformUrl}/v2/core/me`, () =>
        HttpResponse.json({
          user: { id: 1, email: 'ivy@x.test', name: 'Ivy', role: 'investor' },
          entities: [{ type: 'Accreditation', id: 3, name: 'Mine', status: listed }],
        }),
      ),
      // Answered meanwhile with a new upload, elsewhere: the accreditation waits for review again.
      http.get(`${platformUrl}/v2/core/accreditations/3`, () => {
        listed = 'pending';
        return HttpResponse.json({ accreditation: { id: 3, name: 'Mine', status: 'pending' }, assets: [] });
      }),
      http.get(`${platformUrl}/v2/core/accreditations/3/history`, () =>
        HttpResponse.json({ history: [], next_cursor: null }),
      ),
    );
    const user = userEvent.setup();
    const { router } = renderRoutes(routes, '/');
    const list = await accreditations();
    expect(within(list).getByRole('listitem').textContent).toBe('Mine Review: Rejected');
    await user.click(within(list).getByRole('link', { name: 'Mine' }));
    expect(await screen.findByRole('heading', { name: 'Review: Waiting for review' })).toBeTruthy();
    await router.navigate('/');
    await waitFor(async () =>
      expect(within(await accreditations()).getByRole('listitem').textContent).toBe(
        'Mine Review: Waiting for review',
      ),
    );
  });

  it('shows an admin the review queue with how many wait, as the platform counts them', async () => {
    account('admin', []);
    server.use(
      http.get(`${platformUrl}/v2/core/accreditations`, () =>
        HttpResponse.json({
          accreditations: [],
          next_cursor: null,
          counts: { documents_needed: 4, pending: 2, approved: 7, rejected: 1 },
        }),
      ),
    );
    renderRoutes(routes, '/');
    expect(await screen.findByRole('link', { name: 'Review queue (2 waiting)' })).toBeTruthy();
  });

  it('offers investors a way to browse the offerings', async () => {
    account('investor', [{ type: 'User', id: 1, name: 'Ivy' }]);
    const user = userEvent.setup();
    renderRoutes(routes, '/');
    await user.click(await screen.findByRole('link', { name: 'Browse offerings' }));
    expect(await screen.findByRole('heading', { name: 'The offerings' })).toBeTruthy();
  });

  it('does not put the offerings link on an issuer’s start page (their products are listed there)', async () => {
    account('issuer', [{ type: 'Product', id: 7, name: 'Solar' }]);
    renderRoutes(routes, '/');
    expect(await screen.findByRole('link', { name: 'Solar' })).toBeTruthy();
    expect(screen.queryByRole('link', { name: 'Browse offerings' })).toBeNull();
  });

  it('is laid out while the account loads, where the platform says who is signed in: the greeting has its room', async () => {
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get(`${platformUrl}/v2/core/me`, async () => {
        await answered;
        return HttpResponse.json({
          user: { id: 1, email: 'ivy@x.test', name: 'Ivy', role: 'issuer' },
          entities: [{ type: 'Product', id: 7, name: 'Solar' }],
        });
      }),
    );
    const { container } = renderRoutes(routes, '/', testServices(testConfig({ me: true })));
    // As the page the proxy paints (index-page.ts): the lead, the room of the greeting above it.
    expect((await screen.findByRole('status')).textContent).toContain('Loading your files…');
    const lead = screen.getByText('Choose what you want to manage files for.');
    expect(lead.previousElementSibling?.className).toBe('heading-placeholder');
    expect(screen.queryByRole('heading')).toBeNull();

    answer();
    expect(await screen.findByRole('heading', { level: 1, name: 'Hello, Ivy' })).toBeTruthy();
    expect(container.querySelector('.heading-placeholder')).toBeNull();
    expect(screen.getByText('Choose what you want to manage files for.')).toBeTruthy();
  });

  it('says only that it is loading where the platform may not say who is signed in (the page may be another)', async () => {
    server.use(http.get(`${platformUrl}/v2/core/me`, () => new Promise<never>(() => {})));
    renderRoutes(routes, '/', testServices(testConfig({ me: null })));
    expect((await screen.findByRole('status')).textContent).toContain('Loading your files…');
    expect(screen.queryByText('Choose what you want to manage files for.')).toBeNull();
  });
});
