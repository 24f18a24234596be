import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { focusManager } from '@tanstack/react-query';
import { describe, expect, it, vi } from 'vitest';
import {
  http,
  HttpResponse,
  platformDouble,
  platformUrl,
  problemResponse,
  specAsset,
  testConfig,
} from '../../testing/platform-double';
import { renderRoutes, testServices } from '../../testing/render';
import { EntityPage } from './entity-page';

/**
 * An entity page where the platform gives its files a page at a time (ours: `next_cursor` beside the
 * assets), and where it gives them all at once (the spec's lists).
 */
const server = platformDouble();

const routes = [{ path: '/:kind/:id', element: <EntityPage /> }];
const api = (path: string) => `${platformUrl}${path}`;

const charter = (id: number) =>
  specAsset({
    id,
    name: `charter-${id}.csv`,
    file_type: 'charter_document',
    content_type: 'text/csv',
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
  });
const logo = (id: number) =>
  specAsset({
    id,
    name: `logo-${id}.png`,
    created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, id)).toISOString(),
  });

type Asset = ReturnType<typeof specAsset>;

/**
 * Product 7 on a platform that pages as ours does: newest first, `pageSize` to a page, a cursor to
 * the next, `?file_type=…&limit=1` for a type's newest file. The person owns it. Answers what was
 * asked, in order, and lets a test make a later page fail.
 */
function pagedProduct(stored: Asset[], pageSize = 2) {
  const asked: string[] = [];
  const failing = { pages: 0 };
  const newestFirst = () => [...stored].sort((a, b) => b.id - a.id);
  const page = (from: number) => {
    const all = newestFirst();
    const next = from + pageSize < all.length ? String(from + pageSize) : null;
    return { assets: all.slice(from, from + pageSize), next_cursor: next };
  };
  server.use(
    http.get(api('/v2/core/me'), () =>
      HttpResponse.json({
        user: { id: 1, email: 'ida@x.test', name: 'Ida', role: 'issuer' },
        entities: [{ type: 'Product', id: 7, name: 'Solar' }],
      }),
    ),
    http.get(api('/v2/core/products/7'), () => {
      asked.push('/v2/core/products/7');
      const links = { assets: '/v2/core/products/7/assets' };
      return HttpResponse.json({ product: { id: 7, name: 'Solar', links }, ...page(0) });
    }),
    http.get(api('/v2/core/products/7/assets'), ({ request }) => {
      const url = new URL(request.url);
      asked.push(url.pathname + url.search);
      const fileType = url.searchParams.get('file_type');
      if (fileType)
        return HttpResponse.json({
          assets: newestFirst()
            .filter((a) => a.file_type === fileType)
            .slice(0, 1),
          next_cursor: null,
        });
      if (failing.pages > 0) {
        failing.pages -= 1;
        return HttpResponse.json({ errors: ['The platform is busy'] }, { status: 503 });
      }
      return HttpResponse.json(page(Number(url.searchParams.get('cursor') ?? 0)));
    }),
    http.get(api('/v2/core/assets/:id/download_url'), () =>
      HttpResponse.json({ url: 'https://files.test/x' }),
    ),
  );
  return { asked, failing };
}

/** The names of the cards in a slot's list of files, in order. */
async function cardsOf(label: string) {
  const slot = await screen.findByRole('region', { name: label });
  const list = within(slot).queryByRole('list', { name: 'Files' });
  return list
    ? within(list)
        .getAllByRole('listitem')
        .map((card) => card.querySelector('.asset-name')?.textContent)
    : [];
}

const announced = () =>
  screen
    .getAllByRole('status')
    .map((status) => status.textContent)
    .join(' ');

/**
 * jsdom has no IntersectionObserver: a stand-in that the test tells when the button is in view, as
 * a browser would on scrolling (the e2e spec scrolls a real one).
 */
function scrollableWindow() {
  const watching: { callback: IntersectionObserverCallback; target?: Element; live: boolean }[] = [];
  class Observer {
    entry: (typeof watching)[number];
    constructor(callback: IntersectionObserverCallback) {
      this.entry = { callback, live: true };
      watching.push(this.entry);
    }
    observe(target: Element) {
      this.entry.target = target;
    }
    disconnect() {
      this.entry.live = false;
    }
  }
  globalThis.IntersectionObserver = Observer as unknown as typeof IntersectionObserver;
  return {
    /** The button came near the screen: what a browser reports to the observers watching it. */
    scrollToButton() {
      for (const entry of watching.filter((w) => w.live && w.target))
        entry.callback(
          [{ isIntersecting: true, target: entry.target! } as IntersectionObserverEntry],
          {} as IntersectionObserver,
        );
    },
    restore() {
      delete (globalThis as { IntersectionObserver?: unknown }).IntersectionObserver;
    },
  };
}

describe('an entity whose files come a page at a time', () => {
  it('loads the next page from the keyboard, moves focus to its first card and says what came', async () => {
    pagedProduct([charter(27), charter(28), charter(29), charter(30)]);
    const user = userEvent.setup();
    renderRoutes(routes, '/products/7');
    await waitFor(async () =>
      expect(await cardsOf('Charter document')).toEqual(['charter-30.csv', 'charter-29.csv']),
    );
    const more = screen.getByRole('button', { name: 'Show more files' });
    more.focus();
    await user.keyboard('{Enter}');
    await waitFor(async () =>
      expect(await cardsOf('Charter document')).toEqual([
        'charter-30.csv',
        'charter-29.csv',
        'charter-28.csv',
        'charter-27.csv',
      ]),
    );
    await waitFor(() => expect(document.activeElement?.closest('li')?.id).toBe('file-28'));
    expect(document.activeElement?.textContent).toBe('Open charter-28.csv');
    // The cards can show one render before the page counts as loaded; the words follow on the next.
    await waitFor(() => expect(announced()).toContain('2 more files shown: all 4 files are shown.'));
    expect(screen.queryByRole('button', { name: 'Show more files' })).toBeNull();
  });

  it('loads on as the person scrolls, page after page, without taking their focus', async () => {
    const window = scrollableWindow();
    try {
      const { asked } = pagedProduct([27, 28, 29, 30, 31, 32].map(charter));
      renderRoutes(routes, '/products/7');
      await waitFor(async () => expect(await cardsOf('Charter document')).toHaveLength(2));
      act(() => window.scrollToButton());
      await waitFor(async () => expect(await cardsOf('Charter document')).toHaveLength(4));
      await waitFor(() => expect(announced()).toContain('2 more files shown.'));
      // Only coming near loads: staying near does not go on by itself to the end of the list.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(asked.filter((path) => path.includes('cursor='))).toEqual([
        '/v2/core/products/7/assets?cursor=2',
      ]);
      // Scrolled on to it again: the next page.
      act(() => window.scrollToButton());
      await waitFor(async () => expect(await cardsOf('Charter document')).toHaveLength(6));
      await waitFor(() => expect(announced()).toContain('2 more files shown: all 6 files are shown.'));
      expect(document.activeElement).toBe(document.body);
      expect(asked.filter((path) => path.includes('cursor='))).toEqual([
        '/v2/core/products/7/assets?cursor=2',
        '/v2/core/products/7/assets?cursor=4',
      ]);
    } finally {
      window.restore();
    }
  });

  it('says when a page could not be loaded, keeps what is shown, and tries again when asked', async () => {
    const { failing } = pagedProduct([charter(27), charter(28), charter(29), charter(30)]);
    failing.pages = 1;
    const user = userEvent.setup();
    renderRoutes(routes, '/products/7');
    await user.click(await screen.findByRole('button', { name: 'Show more files' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/^More files could not be loaded\. /);
    expect(await cardsOf('Charter document')).toEqual(['charter-30.csv', 'charter-29.csv']);
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    await waitFor(async () => expect(await cardsOf('Charter document')).toHaveLength(4));
    expect(screen.queryByRole('alert')).toBeNull();
  });

  it('shows the file in use in a single-file slot even when it is pages away, and earlier ones as they come', async () => {
    // Two logos, then more charter documents than a page holds: newest first, no logo on page 1.
    const { asked } = pagedProduct([logo(2), logo(3), charter(27), charter(28), charter(29), charter(30)]);
    const user = userEvent.setup();
    renderRoutes(routes, '/products/7');
    await waitFor(async () => expect(await cardsOf('Logo')).toEqual(['logo-3.png']));
    expect(await screen.findByRole('button', { name: 'Replace logo' })).toBeTruthy();
    // Asked for each single-file slot that page 1 left without a file, and for nothing else.
    expect(asked.filter((path) => path.includes('file_type=')).sort()).toEqual([
      '/v2/core/products/7/assets?file_type=business_plan&limit=1',
      '/v2/core/products/7/assets?file_type=cover_image&limit=1',
      '/v2/core/products/7/assets?file_type=logo&limit=1',
      '/v2/core/products/7/assets?file_type=one_page_teaser&limit=1',
      '/v2/core/products/7/assets?file_type=pitch_deck&limit=1',
    ]);
    const more = screen.getByRole('button', { name: 'Show more files' });
    await user.click(more);
    await waitFor(async () => expect(await cardsOf('Charter document')).toHaveLength(4));
    await user.click(screen.getByRole('button', { name: 'Show more files' }));
    // The logo in use stays the one in use, shown once; the older one is listed as not used.
    const slot = screen.getByRole('region', { name: 'Logo' });
    const earlier = await within(slot).findByRole('list', { name: 'Earlier files, not used' });
    expect(
      within(earlier)
        .getAllByRole('listitem')
        .map((card) => card.id),
    ).toEqual(['file-2']);
    expect(await cardsOf('Logo')).toEqual(['logo-3.png']);
    expect(within(slot).getAllByText('logo-3.png', { selector: '.asset-name' })).toHaveLength(1);
  });

  it('reads every page loaded again after an upload: the new file first, none of those shown lost', async () => {
    const stored = [27, 28, 29, 30].map(charter);
    const { asked } = pagedProduct(stored);
    server.use(
      http.post(api('/v2/core/assets'), () => {
        const made = charter(31);
        stored.push(made);
        return HttpResponse.json({ asset: made }, { status: 201 });
      }),
    );
    const user = userEvent.setup();
    renderRoutes(routes, '/products/7');
    await user.click(await screen.findByRole('button', { name: 'Show more files' }));
    await waitFor(async () => expect(await cardsOf('Charter document')).toHaveLength(4));
    asked.length = 0;
    const input = await screen.findByTestId('input-charter_document');
    await user.upload(input, new File(['year,revenue\n2025,1'], 'charter-31.csv', { type: 'text/csv' }));
    await waitFor(async () =>
      expect(await cardsOf('Charter document')).toEqual([
        'charter-31.csv',
        'charter-30.csv',
        'charter-29.csv',
        'charter-28.csv',
        'charter-27.csv',
      ]),
    );
    // Both pages read again; the new file pushed the oldest one shown onto a third, read too.
    expect(asked.filter((path) => !path.includes('file_type='))).toEqual([
      '/v2/core/products/7',
      '/v2/core/products/7/assets?cursor=2',
      '/v2/core/products/7/assets?cursor=4',
    ]);
  });
});

describe('an entity whose files come all at once (a platform with the spec’s lists)', () => {
  it('shows every file, offers no more, and asks for nothing else', async () => {
    const asked: string[] = [];
    server.use(
      http.get(api('/v2/core/me'), () => HttpResponse.json({ errors: ['Not found'] }, { status: 404 })),
      http.get(api('/v2/core/products/7'), ({ request }) => {
        asked.push(new URL(request.url).pathname);
        return HttpResponse.json({
          product: { id: 7, name: 'Solar', links: { assets: '/v2/core/products/7/assets' } },
          assets: [logo(3), charter(29), charter(28), charter(27)],
        });
      }),
      http.get(api('/v2/core/products/7/assets'), ({ request }) => {
        asked.push(new URL(request.url).pathname);
        return HttpResponse.json({ assets: [] });
      }),
      http.get(api('/v2/core/assets/:id/download_url'), () =>
        HttpResponse.json({ url: 'https://files.test/x' }),
      ),
    );
    renderRoutes(routes, '/products/7');
    await waitFor(async () =>
      expect(await cardsOf('Charter document')).toEqual([
        'charter-29.csv',
        'charter-28.csv',
        'charter-27.csv',
      ]),
    );
    expect(await cardsOf('Logo')).toEqual(['logo-3.png']);
    expect(screen.queryByRole('button', { name: 'Show more files' })).toBeNull();
    expect(asked).toEqual(['/v2/core/products/7']);
  });
});

describe('an entity page while its entity loads', () => {
  it('shows where it is, what kind of entity, and its first slot, then the name and the files in place', async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    pagedProduct([charter(5)]);
    server.use(
      http.get(api('/v2/core/products/7'), async () => {
        await held;
        return HttpResponse.json({
          product: { id: 7, name: 'Solar', links: { assets: '/v2/core/products/7/assets' } },
          assets: [charter(5)],
          next_cursor: null,
        });
      }),
    );
    renderRoutes(routes, '/products/7');
    // The outline the proxy paints too (src/proxy/index-page.ts): the same words, nothing yet invented.
    expect((await screen.findByRole('status')).textContent?.trim()).toBe('Loading the product…');
    expect(screen.getByRole('navigation', { name: 'Breadcrumb' }).textContent).toBe('Home / Product');
    expect(screen.getByRole('heading', { level: 1 }).textContent?.trim()).toBe('Product');
    // The first slot in the order of the job: a product is recognised by its logo.
    expect(screen.getByRole('heading', { level: 2, name: 'Logo' })).toBeTruthy();
    expect(screen.getByText(/^The product's logo\./)).toBeTruthy();
    expect(screen.queryByRole('heading', { level: 2, name: 'Charter document' })).toBeNull();

    act(() => answer());
    expect(await screen.findByRole('heading', { level: 1, name: 'Product Solar' })).toBeTruthy();
    expect(await cardsOf('Charter document')).toEqual(['charter-5.csv']);
    expect(screen.queryByText('Loading the product…')).toBeNull();
    expect(screen.getByRole('region', { name: 'Logo' })).toBeTruthy();
  });
  it('shows no slot on an accreditation while it loads: its review comes above the slots', async () => {
    let answer!: () => void;
    const held = new Promise<void>((resolve) => (answer = resolve));
    server.use(
      http.get(api('/v2/core/accreditations/3'), async () => {
        await held;
        return HttpResponse.json({ accreditation: { id: 3, name: 'Mine', status: 'pending' }, assets: [] });
      }),
      // Extensions this page could use, absent here: it does without them.
      http.get(api('/v2/core/me'), () => new HttpResponse(null, { status: 404 })),
      http.get(api('/v2/core/accreditations/3/history'), () => new HttpResponse(null, { status: 404 })),
    );
    renderRoutes(routes, '/accreditations/3');
    expect((await screen.findByRole('status')).textContent?.trim()).toBe('Loading the accreditation…');
    expect(screen.getByRole('navigation', { name: 'Breadcrumb' }).textContent).toBe('Home / Accreditation');
    expect(screen.getByRole('heading', { level: 1 }).textContent?.trim()).toBe('Accreditation');
    expect(screen.queryByRole('heading', { level: 2 })).toBeNull();

    act(() => answer());
    expect(await screen.findByRole('heading', { level: 1, name: 'Accreditation Mine' })).toBeTruthy();
    expect(screen.queryByText('Loading the accreditation…')).toBeNull();
  });
});

describe('an entity the person does not own', () => {
  it('says "view only" beside the kind, offers no upload, and lists related entities under the title', async () => {
    pagedProduct([charter(5)]);
    server.use(
      http.get(api('/v2/core/me'), () =>
        HttpResponse.json({
          user: { id: 2, email: 'ivy@x.test', name: 'Ivy', role: 'investor' },
          entities: [],
        }),
      ),
      http.get(api('/v2/core/products/7'), () =>
        HttpResponse.json({
          product: {
            id: 7,
            name: 'Solar',
            links: { assets: '/v2/core/products/7/assets' },
            investments: [{ id: 3, name: 'Solar — Series A' }],
          },
          assets: [charter(5)],
          next_cursor: null,
        }),
      ),
    );
    renderRoutes(routes, '/products/7');
    const heading = await screen.findByRole('heading', { level: 1, name: 'Product · view only Solar' });
    expect(await cardsOf('Charter document')).toEqual(['charter-5.csv']);
    expect(screen.queryByRole('button', { name: /^Choose/ })).toBeNull();
    // The related entity is named under the title, before the files.
    const related = screen.getByRole('navigation', { name: 'Related' });
    expect(related.textContent).toBe('Investment: Solar — Series A');
    expect(within(related).getByRole('link', { name: 'Solar — Series A' }).getAttribute('href')).toBe(
      '/investments/3',
    );
    const slots = screen.getAllByRole('region');
    const follows = (a: Node, b: Node) =>
      Boolean(a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING);
    expect(follows(heading, related)).toBe(true);
    expect(follows(related, slots[0]!)).toBe(true);
    // Files only: the one slot that has some, without the rules for uploading to it.
    expect(slots.map((slot) => within(slot).getByRole('heading', { level: 2 }).textContent)).toEqual([
      'Charter document',
    ]);
    expect(screen.queryByText(/^Accepts|Holds one file/)).toBeNull();
    expect(screen.queryByText(/yet\.$/)).toBeNull();
  });

  it('says "Nothing shared yet" when there is no file to look at', async () => {
    pagedProduct([]);
    server.use(
      http.get(api('/v2/core/me'), () =>
        HttpResponse.json({
          user: { id: 2, email: 'ivy@x.test', name: 'Ivy', role: 'investor' },
          entities: [],
        }),
      ),
    );
    renderRoutes(routes, '/products/7');
    expect(await screen.findByText('Nothing shared yet.')).toBeTruthy();
    expect(screen.queryAllByRole('region')).toEqual([]);
  });
});

describe('a page that another tab or person changed meanwhile', () => {
  it('after a 412 shows the file as it is now, says the rename was not saved, and applies it again', async () => {
    const stored: Asset[] = [specAsset({ ...charter(5), etag: '"v1"' })];
    pagedProduct(stored);
    const renamedElsewhere = specAsset({ ...charter(5), name: 'renamed-elsewhere.csv', etag: '"v2"' });
    const sentWith: (string | null)[] = [];
    server.use(
      http.put(api('/v2/core/assets/5'), async ({ request }) => {
        sentWith.push(request.headers.get('if-match'));
        // Renamed in another tab after this page read its list.
        if (request.headers.get('if-match') === '"v1"') {
          stored[0] = renamedElsewhere;
          return problemResponse(412, 'precondition_failed', { detail: 'Changed.' });
        }
        const body = (await request.json()) as { asset: { name: string } };
        stored[0] = specAsset({ ...charter(5), name: body.asset.name, etag: '"v3"' });
        return HttpResponse.json({ asset: stored[0] });
      }),
      // Read again after the 412.
      http.get(api('/v2/core/assets/5'), () =>
        HttpResponse.json({ asset: renamedElsewhere }, { headers: { etag: '"v2"' } }),
      ),
    );
    const user = userEvent.setup();
    // A platform that honours If-Match, as ours does.
    renderRoutes(routes, '/products/7', testServices(testConfig({ ifMatch: true })));
    await waitFor(async () => expect(await cardsOf('Charter document')).toEqual(['charter-5.csv']));
    await user.click(screen.getByRole('button', { name: 'Rename charter-5.csv' }));
    const field = screen.getByRole('textbox');
    await user.clear(field);
    await user.type(field, 'mine.csv{Enter}');

    const alert = await screen.findByText(/^Changed elsewhere — your rename to “mine\.csv” was not saved\./);
    expect(await cardsOf('Charter document')).toEqual(['renamed-elsewhere.csv']);
    await user.click(
      within(alert.closest('[role="alert"]')!).getByRole('button', { name: 'Apply my rename again' }),
    );
    await waitFor(async () => expect(await cardsOf('Charter document')).toEqual(['mine.csv']));
    // The second try was made on the version read back, not on the stale one.
    expect(sentWith).toEqual(['"v1"', '"v2"']);
    expect(screen.queryByText(/^Changed elsewhere/)).toBeNull();
  });

  it('takes away the card of a file deleted elsewhere, with a notice, when a change finds it gone', async () => {
    const stored = [charter(5), charter(6)];
    pagedProduct(stored);
    server.use(
      http.put(api('/v2/core/assets/5'), () => {
        // Deleted in another tab after this page read its list.
        stored.splice(0, 1);
        return problemResponse(404, 'not_found', { detail: 'No asset 5.' });
      }),
    );
    const user = userEvent.setup();
    renderRoutes(routes, '/products/7');
    await waitFor(async () =>
      expect(await cardsOf('Charter document')).toEqual(['charter-6.csv', 'charter-5.csv']),
    );
    await user.click(screen.getByRole('button', { name: 'Rename charter-5.csv' }));
    await user.type(screen.getByRole('textbox'), 'x{Enter}');
    expect(
      await screen.findByText('charter-5.csv is no longer here: it was deleted elsewhere.'),
    ).toBeTruthy();
    expect(await cardsOf('Charter document')).toEqual(['charter-6.csv']);
    expect(screen.queryByText(/not found, or you do not have access/)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Dismiss this message' }));
    expect(screen.queryByText(/deleted elsewhere/)).toBeNull();
  });

  it('reads the files again when the person comes back to the tab', async () => {
    const stored = [charter(5), charter(6)];
    pagedProduct(stored);
    renderRoutes(routes, '/products/7');
    await waitFor(async () =>
      expect(await cardsOf('Charter document')).toEqual(['charter-6.csv', 'charter-5.csv']),
    );
    // Deleted in another tab while this one was in the background, long enough for its list to go
    // stale; then the person comes back to it.
    stored.splice(1, 1);
    act(() => focusManager.setFocused(false));
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 60_000);
      act(() => focusManager.setFocused(true));
      await waitFor(async () => expect(await cardsOf('Charter document')).toEqual(['charter-5.csv']));
    } finally {
      vi.useRealTimers();
      focusManager.setFocused(undefined);
    }
  });
});

describe('a file dropped anywhere on the page', () => {
  /** Drops files on an element as a browser does: a drag carrying files, then the drop. */
  function dropOn(target: Element, files: File[]) {
    const dataTransfer = { files, types: ['Files'], items: [], dropEffect: 'copy' };
    fireEvent.dragEnter(target, { dataTransfer });
    fireEvent.dragOver(target, { dataTransfer });
    fireEvent.drop(target, { dataTransfer });
  }
  const pdf = (name: string) => new File(['%PDF-1.7 x'], name, { type: 'application/pdf' });

  it('asks which slot when it fits several, then uploads it there', async () => {
    pagedProduct([]);
    const created: string[] = [];
    server.use(
      http.post(api('/v2/core/assets'), async ({ request }) => {
        const form = await request.formData();
        created.push(String(form.get('file_type')));
        return HttpResponse.json(
          { asset: specAsset({ id: 90, name: 'deck.pdf', file_type: String(form.get('file_type')) }) },
          { status: 201 },
        );
      }),
    );
    const user = userEvent.setup();
    renderRoutes(routes, '/products/7');
    // Empty slots take one line each; their rules are folded away.
    const decks = await screen.findByRole('region', { name: 'Pitch deck' });
    expect(within(decks).getByText('No pitch deck yet')).toBeTruthy();
    expect(within(decks).getByText('What it takes')).toBeTruthy();

    // On the page's title, far from any slot: the whole page takes it.
    dropOn(screen.getByRole('heading', { level: 1 }), [pdf('deck.pdf')]);
    const dialog = await screen.findByRole('dialog', { name: 'Where does deck.pdf go?' });
    // The slots that take a PDF, in the page's order; the images' slots are not offered.
    expect(
      within(dialog)
        .getAllByRole('button')
        .map((b) => b.textContent),
    ).toEqual(['Pitch deck', 'One-page teaser', 'Business plan', 'Charter document', 'Cancel']);
    await user.click(within(dialog).getByRole('button', { name: 'Pitch deck' }));
    await waitFor(() => expect(created).toEqual(['pitch_deck']));
  });

  it('refuses in words a file that fits no slot, and sends nothing', async () => {
    pagedProduct([]);
    renderRoutes(routes, '/products/7');
    await screen.findByRole('region', { name: 'Pitch deck' });
    dropOn(document.querySelector('.page-drop')!, [
      new File(['MZ'], 'setup.exe', { type: 'application/x-msdownload' }),
    ]);
    expect((await screen.findByRole('alert')).textContent).toBe(
      'setup.exe fits none of the slots of this product.',
    );
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('takes nothing on a page the person may only look at', async () => {
    pagedProduct([charter(5)]);
    server.use(
      http.get(api('/v2/core/me'), () =>
        HttpResponse.json({
          user: { id: 2, email: 'ivy@x.test', name: 'Ivy', role: 'investor' },
          entities: [],
        }),
      ),
    );
    renderRoutes(routes, '/products/7');
    await screen.findByRole('heading', { level: 1, name: 'Product · view only Solar' });
    dropOn(document.querySelector('.page-drop')!, [pdf('deck.pdf')]);
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
