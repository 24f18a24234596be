import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
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
import { undoWindowMs } from '../../lib/deferred-actions';
import { renderRoutes } from '../../testing/render';
import { EntityPage } from './entity-page';

/**
 * An accreditation on our platform (issue 28): the checklist of what it needs, "Send for review",
 * the address tick, the rejection's reason in plain words, files kept as evidence of a decision, and
 * the decisions' files in the history.
 */
const server = mockPlatform();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  vi.useRealTimers();
  server.resetHandlers();
});
afterAll(() => server.close());

const routes = [{ path: '/:kind/:id', element: <EntityPage /> }];
const api = (path: string) => `${platformUrl}${path}`;

type Accreditation = ReturnType<typeof ourAccreditation>;
type Asset = ReturnType<typeof accreditationAsset>;

/**
 * Accreditation 3 of Ivy Investor, as the platform holds it now (`state.accreditation`, which a test
 * changes as the platform would), with its files; the changes the app asks for (PUT bodies) are kept.
 */
function platformWith(accreditation: Accreditation, assets: Asset[] = [], role = 'investor') {
  const state = { accreditation, assets, history: [] as unknown[] };
  const changes: unknown[] = [];
  const put = { answer: null as Response | null };
  server.use(
    http.get(api('/v2/core/me'), () =>
      HttpResponse.json({
        user: { id: role === 'admin' ? 9 : 2, email: 'x@x.test', name: 'Someone', role },
        entities:
          role === 'admin'
            ? []
            : [
                {
                  type: 'Accreditation',
                  id: 3,
                  name: state.accreditation.name,
                  status: state.accreditation.status,
                },
              ],
      }),
    ),
    http.get(api('/v2/core/accreditations/3'), () =>
      HttpResponse.json({ accreditation: state.accreditation, assets: state.assets }),
    ),
    http.put(api('/v2/core/accreditations/3'), async ({ request }) => {
      changes.push(await request.json());
      return put.answer ?? HttpResponse.json({ accreditation: state.accreditation });
    }),
    http.get(api('/v2/core/accreditations/3/history'), () =>
      HttpResponse.json({ history: state.history, next_cursor: null }),
    ),
    http.get(api('/v2/core/assets/:id/download_url'), ({ params }) =>
      HttpResponse.json({ url: `https://files.test/${String(params.id)}` }),
    ),
  );
  return { state, changes, put };
}

const checklist = () => screen.findByRole('region', { name: 'What your accreditation needs' });
const lines = (region: HTMLElement) =>
  within(region)
    .getAllByRole('listitem')
    .map((item) => item.textContent?.replace(/\s+/g, ' ').trim());

describe('the checklist of an accreditation', () => {
  it('says what is missing, names the status, and keeps "Send for review" off with the reason', async () => {
    platformWith(ourAccreditation({ requirements: requirements({ accreditation_letter: true }) }));
    renderRoutes(routes, '/accreditations/3');
    const list = await checklist();
    expect(lines(list)).toEqual([
      'Done Letter of accreditation or Executed letter of accreditation (one of the two)',
      "Missing Driver's licence, front and back",
    ]);
    expect(screen.getByRole('heading', { name: 'Review: Documents needed' })).toBeTruthy();
    expect(screen.queryByText('Waiting for review')).toBeNull();
    const send = within(list).getByRole('button', { name: 'Send for review' });
    expect((send as HTMLButtonElement).disabled).toBe(true);
    expect(send.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(send.getAttribute('aria-describedby')!)?.textContent).toBe(
      "Upload what is missing first: Driver's licence, front and back.",
    );
    // Each slot says whether it is needed.
    const need = (slot: string) =>
      within(screen.getByRole('region', { name: slot })).getByText(/^(Required|Optional|One of these two)$/)
        .textContent;
    expect(need('Letter of accreditation')).toBe('One of these two');
    expect(need('Executed letter of accreditation')).toBe('One of these two');
    expect(need("Driver's licence")).toBe('Required');
    expect(need('Utility bill')).toBe('Optional');
  });

  it('sends a complete accreditation for review, and then says it waits', async () => {
    const { state, changes } = platformWith(
      ourAccreditation({ requirements: requirements({ accreditation_letter: true, drivers_license: true }) }),
    );
    const user = userEvent.setup();
    renderRoutes(routes, '/accreditations/3');
    const send = within(await checklist()).getByRole('button', { name: 'Send for review' });
    expect((send as HTMLButtonElement).disabled).toBe(false);
    state.accreditation = {
      ...state.accreditation,
      status: 'pending',
      submitted_at: new Date().toISOString(),
    };
    await user.click(send);
    expect(await screen.findByRole('heading', { name: 'Review: Waiting for review' })).toBeTruthy();
    expect(changes).toEqual([{ accreditation: { status: 'pending' } }]);
    expect(screen.queryByRole('button', { name: 'Send for review' })).toBeNull();
    // While it waits, what it needs is fixed: the address answer cannot change.
    const tick = screen.getByRole('checkbox', { name: 'My licence does not show my current address' });
    expect((tick as HTMLInputElement).disabled).toBe(true);
    expect(tick.getAttribute('aria-describedby')).toBeTruthy();
    expect(document.getElementById(tick.getAttribute('aria-describedby')!)?.textContent).toBe(
      'This cannot change while your accreditation waits for review.',
    );
  });

  it('shows the platform’s refusal (422) beside each requirement it names', async () => {
    const { put } = platformWith(
      ourAccreditation({ requirements: requirements({ accreditation_letter: true, drivers_license: true }) }),
    );
    put.answer = problemResponse(422, 'validation_failed', {
      detail: 'Something is missing.',
      errors: [{ field: 'requirements.drivers_license', message: 'The back of the licence is missing.' }],
    });
    const user = userEvent.setup();
    renderRoutes(routes, '/accreditations/3');
    await user.click(within(await checklist()).getByRole('button', { name: 'Send for review' }));
    await waitFor(() =>
      expect(lines(screen.getByRole('region', { name: 'What your accreditation needs' }))[1]).toBe(
        "Done Driver's licence, front and back The back of the licence is missing.",
      ),
    );
    expect(screen.getByRole('alert').textContent).toMatch(/something is still missing/);
  });

  it('asks for a utility bill once the investor ticks that the licence lacks the address', async () => {
    const { state, changes } = platformWith(ourAccreditation());
    const user = userEvent.setup();
    renderRoutes(routes, '/accreditations/3');
    const tick = within(await checklist()).getByRole('checkbox', {
      name: 'My licence does not show my current address',
    });
    expect((tick as HTMLInputElement).checked).toBe(false);
    state.accreditation = {
      ...state.accreditation,
      address_on_licence: false,
      requirements: requirements({}, false),
    };
    await user.click(tick);
    await waitFor(() =>
      expect(lines(screen.getByRole('region', { name: 'What your accreditation needs' }))).toHaveLength(3),
    );
    expect(changes).toEqual([{ accreditation: { address_on_licence: false } }]);
    expect((tick as HTMLInputElement).checked).toBe(true);
    expect(within(screen.getByRole('region', { name: 'Utility bill' })).getByText('Required')).toBeTruthy();
  });
});

const rejected = (fileIds: number[]) =>
  ({
    status: 'rejected',
    reason: 'unreadable',
    note: 'The licence photo is blurred.',
    at: '2026-11-20T10:00:00.000Z',
    by: { id: 9, name: 'Ada Admin' },
    history_id: 40,
    file_ids: fileIds,
  }) as const;

describe('after a rejection', () => {
  it('tells the investor the reason in plain words, the note, and what to do', async () => {
    platformWith(
      ourAccreditation({
        status: 'rejected',
        review_reason: 'unreadable',
        review_note: 'The licence photo is blurred.',
        reviewed_by: { id: 9, name: 'Ada Admin' },
        reviewed_at: '2026-11-20T10:00:00.000Z',
        last_decision: rejected([21]),
      }),
      [accreditationAsset({ id: 21 })],
    );
    renderRoutes(routes, '/accreditations/3');
    const status = await screen.findByRole('region', { name: 'Review: Rejected' });
    expect(
      within(status).getByText('A document could not be read. Upload a sharper photo or scan of it.'),
    ).toBeTruthy();
    expect(within(status).getByText('The licence photo is blurred.')).toBeTruthy();
    expect(within(status).getByText(/What to do next/)).toBeTruthy();
  });

  it('keeps the files decided on: no Delete or Replace, says why; a new file goes beside them', async () => {
    platformWith(
      ourAccreditation({
        status: 'documents_needed',
        last_decision: rejected([21, 22]),
        requirements: requirements({ accreditation_letter: true, drivers_license: true }),
      }),
      [
        accreditationAsset({ id: 21, name: 'letter.pdf' }),
        accreditationAsset({
          id: 22,
          name: 'front.png',
          file_type: 'drivers_license',
          meta: { side: 'front' },
        }),
        accreditationAsset({
          id: 23,
          name: 'back.png',
          file_type: 'drivers_license',
          meta: { side: 'back' },
        }),
      ],
    );
    renderRoutes(routes, '/accreditations/3');
    // The investor still reads why it was rejected after uploading anew.
    const status = await screen.findByRole('region', { name: 'Review: Documents needed' });
    expect(within(status).getByText(/could not be read/)).toBeTruthy();

    const letters = screen.getByRole('region', { name: 'Letter of accreditation' });
    const letter = within(letters).getByRole('listitem');
    expect(
      within(letter).getByText('Kept as evidence of the rejection — upload a new file beside it.'),
    ).toBeTruthy();
    expect(within(letter).queryByRole('button', { name: /^Delete/ })).toBeNull();
    expect(within(letters).queryByRole('button', { name: /^Replace/ })).toBeNull();
    expect(await within(letters).findByRole('button', { name: /^Choose a file/ })).toBeTruthy();

    const licence = screen.getByRole('region', { name: "Driver's licence" });
    const [front, back] = within(licence).getAllByRole('listitem');
    expect(within(front!).getByText("Driver's licence — front")).toBeTruthy();
    expect(within(front!).queryByRole('button', { name: /^Delete/ })).toBeNull();
    // A file added since the decision is the investor's to delete.
    expect(within(back!).getByText("Driver's licence — back")).toBeTruthy();
    expect(within(back!).getByRole('button', { name: 'Delete back.png' })).toBeTruthy();
  });

  it('says why a file of an earlier decision stays when the platform refuses its delete (409 retained)', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const deletes: string[] = [];
    platformWith(ourAccreditation({ status: 'documents_needed', last_decision: rejected([22]) }), [
      // Approved on once, before the last decision: the platform keeps it, the app does not know.
      accreditationAsset({
        id: 21,
        name: 'old-back.png',
        file_type: 'drivers_license',
        meta: { side: 'back' },
      }),
      accreditationAsset({
        id: 22,
        name: 'front.png',
        file_type: 'drivers_license',
        meta: { side: 'front' },
      }),
    ]);
    const detail = 'This file is kept as evidence of the approval of 1 November 2026.';
    server.use(
      http.delete(api('/v2/core/assets/:id'), ({ params }) => {
        deletes.push(String(params.id));
        return problemResponse(409, 'retained', { detail });
      }),
    );
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderRoutes(routes, '/accreditations/3');
    const licence = await screen.findByRole('region', { name: "Driver's licence" });
    await user.click(within(licence).getByRole('button', { name: 'Delete old-back.png' }));
    await vi.advanceTimersByTimeAsync(undoWindowMs);
    expect(
      await within(licence).findByText(`old-back.png was not deleted: ${detail}`, { exact: false }),
    ).toBeTruthy();
    expect(deletes).toEqual(['21']);
    // The card is back: the file stayed.
    expect(within(licence).getByRole('button', { name: 'Open old-back.png' })).toBeTruthy();
  });

  it('offers the licence’s sides for the next photo, the missing one first', async () => {
    platformWith(ourAccreditation(), [
      accreditationAsset({
        id: 22,
        name: 'front.png',
        file_type: 'drivers_license',
        meta: { side: 'front' },
      }),
    ]);
    renderRoutes(routes, '/accreditations/3');
    const licence = await screen.findByRole('region', { name: "Driver's licence" });
    const sides = within(licence).getByRole('group', { name: 'Which side does the next photo show?' });
    expect(
      within(sides)
        .getAllByRole('radio')
        .map((r) => r.closest('label')?.textContent?.trim()),
    ).toEqual(['Front', 'Back', 'One photo shows both sides']);
    expect((within(sides).getByRole('radio', { name: 'Back' }) as HTMLInputElement).checked).toBe(true);
  });

  it('lists the files each decision was made on in the history, each opened by its id', async () => {
    const { state } = platformWith(ourAccreditation({ status: 'rejected', last_decision: rejected([21]) }), [
      accreditationAsset({ id: 21, name: 'letter.pdf', content_type: 'application/pdf' }),
    ]);
    state.history = [
      {
        id: 40,
        at: '2026-11-20T10:00:00.000Z',
        action: 'rejected',
        actor: { id: 9, name: 'Ada Admin', role: 'admin' },
        note: 'The licence photo is blurred.',
        reason: 'unreadable',
        files: [
          { id: 21, name: 'letter.pdf', sha256: 'ab'.repeat(32), file_type: 'letter_of_accreditation' },
          // The photo check's flags the decision saw (issue 31), kept with it.
          {
            id: 22,
            name: 'licence.jpg',
            sha256: 'cd'.repeat(32),
            file_type: 'drivers_license',
            quality_issues: ['blurry'],
          },
        ],
        file: null,
      },
    ];
    const opened = vi.spyOn(window, 'open').mockImplementation(() => null);
    const user = userEvent.setup();
    renderRoutes(routes, '/accreditations/3');
    const history = await screen.findByRole('region', { name: 'History' });
    const entry = await within(history).findByText(
      /Ada Admin rejected the accreditation \(unreadable or blurry\)/,
    );
    const item = entry.closest('li')!;
    expect(within(item).getByText(/letter\.pdf \(letter of accreditation\)/)).toBeTruthy();
    const licence = within(item)
      .getByText(/licence\.jpg \(driver's licence\)/)
      .closest('li')!;
    expect(within(licence).getByText('Possibly blurry')).toBeTruthy();
    expect(within(item).getAllByText(/^Possibly/)).toHaveLength(1);
    await user.click(within(item).getByRole('button', { name: 'Open letter.pdf' }));
    await waitFor(() =>
      expect(opened).toHaveBeenCalledWith('https://files.test/21', '_blank', 'noopener,noreferrer'),
    );
    opened.mockRestore();
  });
});

describe('an accreditation on a platform without the checklist', () => {
  it('shows its review as before: no checklist, no "Send for review", no sides', async () => {
    server.use(
      http.get(api('/v2/core/me'), () =>
        HttpResponse.json({
          user: { id: 2, email: 'ivy@x.test', name: 'Ivy', role: 'investor' },
          entities: [{ type: 'Accreditation', id: 3, name: 'Mine', status: 'pending' }],
        }),
      ),
      http.get(api('/v2/core/accreditations/3'), () =>
        HttpResponse.json({ accreditation: { id: 3, name: 'Mine', status: 'pending' }, assets: [] }),
      ),
      http.get(api('/v2/core/accreditations/3/history'), () => new HttpResponse(null, { status: 404 })),
    );
    renderRoutes(routes, '/accreditations/3');
    expect(await screen.findByRole('heading', { name: 'Review: Waiting for review' })).toBeTruthy();
    expect(screen.queryByRole('region', { name: 'What your accreditation needs' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Send for review' })).toBeNull();
    expect(screen.queryByRole('group', { name: 'Which side does the next photo show?' })).toBeNull();
    expect(screen.queryByText('Required')).toBeNull();
  });
});
