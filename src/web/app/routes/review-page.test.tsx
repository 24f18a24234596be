import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { decisionKey, waitingDecisions } from '../../features/review/review-queries';
import { undoWindowMs } from '../../lib/deferred-actions';
import {
  accreditationAsset,
  http,
  HttpResponse,
  mockPlatform,
  ourAccreditation,
  platformUrl,
  problemResponse,
  requirements,
} from '../../testing/platform-double';
import { renderRoutes } from '../../testing/render';
import { EntityPage } from './entity-page';
import { ReviewPage } from './review-page';

/**
 * The admins' review queue (issue 28): oldest first with counts, search by investor, documents
 * labelled by kind with what is new since the last decision, a reason required on Reject, focus
 * moving on after a decision, and a decision refused as stale (412) saying who decided meanwhile.
 */
const server = mockPlatform();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
// Decisions wait out an undo window: the tests move the clock on rather than wait.
beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
afterEach(() => {
  // Decisions (and their failure notices) outlive a test in the module's list: each test starts clean.
  for (const id of [3, 4, 5]) waitingDecisions.undo(decisionKey(id));
  vi.useRealTimers();
  server.resetHandlers();
});
afterAll(() => server.close());

const routes = [
  { path: '/review', element: <ReviewPage /> },
  { path: '/:kind/:id', element: <EntityPage /> },
];
const api = (path: string) => `${platformUrl}${path}`;
const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000).toISOString();

const waitingOne = (id: number, name: string, fields: Parameters<typeof ourAccreditation>[0] = {}) => ({
  ...ourAccreditation({
    id,
    name: `Accreditation of ${name}`,
    status: 'pending',
    submitted_at: hoursAgo(id),
    owner: { id: id * 10, name, email: `${name.split(' ')[0]!.toLowerCase()}@x.test` },
    requirements: requirements({ accreditation_letter: true, drivers_license: true }),
    ...fields,
  }),
  assets: [
    accreditationAsset({
      id: id * 10 + 1,
      name: `letter-${id}.pdf`,
      assetable: { type: 'Accreditation', id },
    }),
    accreditationAsset({
      id: id * 10 + 2,
      name: `licence-${id}.png`,
      file_type: 'drivers_license',
      meta: { side: 'both' },
      assetable: { type: 'Accreditation', id },
    }),
  ],
});

/** The queue as our platform answers it: `?status=` and `?q=`, with counts over all accreditations. */
function queue(waiting: ReturnType<typeof waitingOne>[], decided = 5) {
  const asked: string[] = [];
  const decisions: { id: string; body: unknown; ifMatch: string | null }[] = [];
  const put = { answer: null as Response | null };
  server.use(
    http.get(api('/v2/core/accreditations'), ({ request }) => {
      const url = new URL(request.url);
      asked.push(url.search);
      const q = url.searchParams.get('q')?.toLowerCase() ?? '';
      const matching = waiting.filter(
        (a) => a.owner.name.toLowerCase().includes(q) || a.owner.email.includes(q),
      );
      return HttpResponse.json({
        accreditations: url.searchParams.get('status') === 'pending' ? matching : [],
        next_cursor: null,
        counts: { documents_needed: 1, pending: waiting.length, approved: decided - 1, rejected: 1 },
      });
    }),
    http.put(api('/v2/core/accreditations/:id'), async ({ request, params }) => {
      decisions.push({
        id: String(params.id),
        body: await request.json(),
        ifMatch: request.headers.get('If-Match'),
      });
      return put.answer ?? HttpResponse.json({});
    }),
    http.get(api('/v2/core/assets/:id/download_url'), () =>
      HttpResponse.json({ url: 'https://files.test/x' }),
    ),
  );
  return { asked, decisions, put };
}

const card = (name: string) => screen.findByRole('listitem', { name: `Accreditation of ${name}` });

describe('the review queue', () => {
  it('shows the counts, how long each waits, and each file by its kind', async () => {
    queue([waitingOne(5, 'Ivy Investor'), waitingOne(3, 'Otto Owner')]);
    renderRoutes(routes, '/review');
    const tabs = screen.getByRole('navigation', { name: 'Accreditations' });
    await waitFor(() =>
      expect(
        within(tabs)
          .getAllByRole('link')
          .map((l) => l.textContent),
      ).toEqual(['Waiting (2)', 'Decided (5)']),
    );
    const ivy = await card('Ivy Investor');
    expect(ivy.textContent).toMatch(/Waiting since 5 hours ago/);
    const documents = within(ivy).getByRole('list', { name: 'Documents of Accreditation of Ivy Investor' });
    expect(within(documents).getByText('Letter of accreditation')).toBeTruthy();
    expect(within(documents).getByText("Driver's licence — front and back")).toBeTruthy();
    // Never decided: nothing is new.
    expect(within(documents).queryByText('New')).toBeNull();
  });

  it('marks the files added since the last decision as new', async () => {
    const ivy = waitingOne(5, 'Ivy Investor', {
      last_decision: {
        status: 'rejected',
        reason: 'unreadable',
        note: null,
        at: hoursAgo(30),
        by: { id: 9, name: 'Ada Admin' },
        history_id: 1,
        file_ids: [51],
      },
    });
    queue([ivy]);
    renderRoutes(routes, '/review');
    const item = await card('Ivy Investor');
    const [letter, licence] = within(item).getAllByRole('listitem');
    expect(within(letter!).queryByText('New')).toBeNull();
    expect(within(licence!).getByText('New')).toBeTruthy();
  });

  it('searches by investor as the admin types, and keeps the search in the address', async () => {
    const { asked } = queue([waitingOne(5, 'Ivy Investor'), waitingOne(3, 'Otto Owner')]);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const { router } = renderRoutes(routes, '/review');
    await card('Otto Owner');
    await user.type(screen.getByRole('searchbox', { name: 'Search by investor name or email' }), 'ivy');
    await vi.advanceTimersByTimeAsync(400);
    await waitFor(() =>
      expect(screen.queryByRole('listitem', { name: 'Accreditation of Otto Owner' })).toBeNull(),
    );
    expect(await card('Ivy Investor')).toBeTruthy();
    expect(router.state.location.search).toBe('?q=ivy');
    expect(asked).toContain('?status=pending&q=ivy');
    // Typed letter by letter, searched once the typing paused.
    expect(asked.filter((search) => search.includes('q='))).toEqual(['?status=pending&q=ivy']);
    // The tabs still count everything.
    expect(screen.getByRole('link', { name: 'Waiting (2)' })).toBeTruthy();
  });

  it('keeps a rejection begun while a search is still on its way: the cards stay as the answer comes', async () => {
    queue([waitingOne(5, 'Ivy Investor'), waitingOne(3, 'Otto Owner')]);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderRoutes(routes, '/review');
    const item = await card('Ivy Investor');
    await user.type(screen.getByRole('searchbox', { name: 'Search by investor name or email' }), 'ivy');
    // Reject pressed before the typing pause has run the search.
    await user.click(within(item).getByRole('button', { name: 'Reject' }));
    await user.click(within(item).getByRole('radio', { name: 'Expired' }));
    await vi.advanceTimersByTimeAsync(400);
    await waitFor(() =>
      expect(screen.queryByRole('listitem', { name: 'Accreditation of Otto Owner' })).toBeNull(),
    );
    const searched = await card('Ivy Investor');
    expect(within(searched).getByRole('radio', { name: 'Expired' })).toHaveProperty('checked', true);
  });

  it('refuses a rejection without a reason: says so and sends nothing', async () => {
    const { decisions } = queue([waitingOne(5, 'Ivy Investor')]);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderRoutes(routes, '/review');
    const item = await card('Ivy Investor');
    await user.click(within(item).getByRole('button', { name: 'Reject' }));
    const reasons = within(item).getByRole('group', { name: 'Why is it rejected?' });
    expect(
      within(reasons)
        .getAllByRole('radio')
        .map((r) => r.closest('label')?.textContent?.trim()),
    ).toEqual([
      'Unreadable or blurry',
      'Expired',
      'Name does not match',
      'Not signed',
      'Wrong document',
      'Other (say what in the note)',
    ]);
    await user.click(within(item).getByRole('button', { name: 'Reject' }));
    expect(within(item).getByRole('alert').textContent).toBe(
      'Choose why it is rejected: the investor is told the reason.',
    );
    // "Other" needs a note.
    await user.click(within(reasons).getByRole('radio', { name: 'Other (say what in the note)' }));
    await user.click(within(item).getByRole('button', { name: 'Reject' }));
    expect(within(item).getByRole('alert').textContent).toBe(
      'Say in the note what is wrong: the reason is “Other”.',
    );
    await vi.advanceTimersByTimeAsync(undoWindowMs * 2);
    expect(decisions).toEqual([]);
    expect(screen.getByRole('listitem', { name: 'Accreditation of Ivy Investor' })).toBeTruthy();
  });

  it('sends a rejection with its reason and note once the undo window has passed', async () => {
    const { decisions } = queue([waitingOne(5, 'Ivy Investor')]);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderRoutes(routes, '/review');
    const item = await card('Ivy Investor');
    await user.click(within(item).getByRole('button', { name: 'Reject' }));
    await user.click(within(item).getByRole('radio', { name: 'Expired' }));
    await user.type(within(item).getByRole('textbox'), 'The licence ran out in May.');
    await user.click(within(item).getByRole('button', { name: 'Reject' }));
    await vi.advanceTimersByTimeAsync(undoWindowMs);
    await waitFor(() =>
      expect(decisions).toEqual([
        {
          id: '5',
          body: {
            accreditation: { status: 'rejected', reason: 'expired', note: 'The licence ran out in May.' },
          },
          ifMatch: null,
        },
      ]),
    );
  });

  it('moves focus to the next card after a decision, and to the empty queue after the last', async () => {
    queue([waitingOne(5, 'Ivy Investor'), waitingOne(3, 'Otto Owner')]);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderRoutes(routes, '/review');
    const ivy = await card('Ivy Investor');
    const otto = await card('Otto Owner');
    await user.click(within(ivy).getByRole('button', { name: 'Approve' }));
    await waitFor(() => expect(document.activeElement).toBe(within(otto).getAllByRole('button')[0]));
    await user.click(within(otto).getByRole('button', { name: 'Approve' }));
    const empty = await screen.findByText('The queue is empty: nothing waits for a decision.');
    await waitFor(() => expect(document.activeElement).toBe(empty));
  });

  it('after a refusal as stale (412) reads the accreditation again and says who decided meanwhile', async () => {
    const { put } = queue([waitingOne(5, 'Ivy Investor')]);
    put.answer = problemResponse(412, 'precondition_failed', { detail: 'Changed.' });
    server.use(
      http.get(api('/v2/core/accreditations/5'), () =>
        HttpResponse.json({
          accreditation: ourAccreditation({
            id: 5,
            status: 'approved',
            reviewed_by: { id: 8, name: 'Bea Boss' },
            reviewed_at: hoursAgo(0),
          }),
          assets: [],
        }),
      ),
    );
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderRoutes(routes, '/review');
    await user.click(within(await card('Ivy Investor')).getByRole('button', { name: 'Approve' }));
    await vi.advanceTimersByTimeAsync(undoWindowMs);
    expect(
      await screen.findByText(
        /The decision on Accreditation of Ivy Investor was not recorded: Bea Boss approved it meanwhile\./,
      ),
    ).toBeTruthy();
  });
});

describe('the decision on the accreditation’s own page', () => {
  it('offers an admin the same form, reason required', async () => {
    const { decisions } = queue([]);
    server.use(
      http.get(api('/v2/core/me'), () =>
        HttpResponse.json({ user: { id: 9, email: 'ada@x.test', name: 'Ada', role: 'admin' }, entities: [] }),
      ),
      http.get(api('/v2/core/accreditations/4'), () =>
        HttpResponse.json({ accreditation: ourAccreditation({ id: 4, status: 'pending' }), assets: [] }),
      ),
      http.get(api('/v2/core/accreditations/4/history'), () =>
        HttpResponse.json({ history: [], next_cursor: null }),
      ),
    );
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderRoutes(routes, '/accreditations/4');
    const form = await screen.findByRole('form', { name: 'Decision on Accreditation of Ivy Investor' });
    await user.click(within(form).getByRole('button', { name: 'Reject' }));
    await user.click(within(form).getByRole('button', { name: 'Reject' }));
    expect(within(form).getByRole('alert').textContent).toMatch(/Choose why it is rejected/);
    await user.click(within(form).getByRole('radio', { name: 'Not signed' }));
    await user.click(within(form).getByRole('button', { name: 'Reject' }));
    await vi.advanceTimersByTimeAsync(undoWindowMs);
    await waitFor(() =>
      expect(decisions.map((d) => [d.id, d.body])).toEqual([
        ['4', { accreditation: { status: 'rejected', reason: 'unsigned' } }],
      ]),
    );
  });
});

describe('the photo check’s flags in the queue (issue 31)', () => {
  /** Ivy's licence flagged blurry by the platform; Otto's from a platform that does not check. */
  const flagged = () => {
    const ivy = waitingOne(5, 'Ivy Investor');
    ivy.assets[1] = {
      ...ivy.assets[1]!,
      quality: { ok: false, issues: ['blurry', 'glare'], measures: { sharpness: 12 } },
    } as (typeof ivy.assets)[number];
    return [ivy, waitingOne(3, 'Otto Owner')];
  };

  it('flags the file, and "Reject" starts from "Unreadable or blurry", which the reviewer can change', async () => {
    const { decisions } = queue(flagged());
    renderRoutes(routes, '/review');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const ivy = await card('Ivy Investor');
    const documents = within(ivy).getByRole('list', { name: 'Documents of Accreditation of Ivy Investor' });
    /** The card of one document: the list item that names it. */
    const fileCard = (name: string) =>
      within(documents)
        .getAllByRole('listitem')
        .find((item) => within(item).queryAllByText(name).length > 0)!;
    const licence = fileCard('licence-5.png');
    expect(within(licence).getByText('Possibly blurry')).toBeTruthy();
    expect(within(licence).getByText('Possibly glare')).toBeTruthy();
    expect(within(fileCard('letter-5.pdf')).queryByText(/Possibly/)).toBeNull();

    await user.click(within(ivy).getByRole('button', { name: 'Reject' }));
    expect(within(ivy).getByRole<HTMLInputElement>('radio', { name: 'Unreadable or blurry' }).checked).toBe(
      true,
    );
    await user.click(within(ivy).getByRole('radio', { name: 'Expired' }));
    await user.click(within(ivy).getByRole('button', { name: 'Reject' }));
    await vi.advanceTimersByTimeAsync(undoWindowMs);
    await waitFor(() =>
      expect(decisions.map((d) => d.body)).toEqual([
        { accreditation: { status: 'rejected', reason: 'expired' } },
      ]),
    );
  });

  it('shows no flag and suggests no reason where the platform says nothing about quality', async () => {
    queue(flagged());
    renderRoutes(routes, '/review');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    const otto = await card('Otto Owner');
    expect(within(otto).queryByText(/Possibly/)).toBeNull();
    await user.click(within(otto).getByRole('button', { name: 'Reject' }));
    for (const radio of within(otto).getAllByRole<HTMLInputElement>('radio'))
      expect(radio.checked).toBe(false);
  });
});
