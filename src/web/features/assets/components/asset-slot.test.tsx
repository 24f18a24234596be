import { act, fireEvent, renderHook, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { StoredFile } from '../../../lib/platform/model';
import { http, HttpResponse, platformDouble, platformUrl, specAsset } from '../../../testing/platform-double';
import { productFile, renderSlot } from '../../../testing/render-slot';
import { undoWindowMs } from '../../../lib/deferred-actions';
import { waitingDeletes } from '../pending-deletes';
import { doneSummaryMs } from '../upload/use-uploads';

/** Deletes still waiting, so a test leaves none behind for the next. */
const waitingDeletesNow = () => renderHook(() => waitingDeletes.useWaiting()).result.current;

const server = platformDouble();

/** A pitch deck of product 7 (a slot that holds one file). */
const deck = (id: number, name: string) => productFile(id, name);

// A platform that gives ETags and honours If-Match, as ours does.
const renderDeckSlot = (files: StoredFile[]) => renderSlot({ files, capabilities: { ifMatch: true } });

/** The ids of the cards in a list, in order. */
const cardsIn = (list: HTMLElement) =>
  within(list)
    .getAllByRole('listitem')
    .map((item) => item.id);

const newDeck = () => new File(['%PDF-1.4 new deck'], 'deck-2.pdf', { type: 'application/pdf' });

/** What reached the platform, in order: "POST" for the upload, "DELETE 11 \"e11\"" for a removal. */
function recordRequests(uploadStatus: number, deleteStatus = 204) {
  const seen: string[] = [];
  server.use(
    http.post(`${platformUrl}/v2/core/assets`, () => {
      seen.push('POST');
      return uploadStatus === 201
        ? HttpResponse.json(
            { asset: specAsset({ id: 12, name: 'deck-2.pdf', file_type: 'pitch_deck' }) },
            { status: 201 },
          )
        : HttpResponse.json({ errors: ['The platform is busy'] }, { status: uploadStatus });
    }),
    http.delete(`${platformUrl}/v2/core/assets/:id`, ({ params, request }) => {
      seen.push(`DELETE ${String(params.id)} ${request.headers.get('If-Match') ?? ''}`);
      return deleteStatus === 204
        ? new HttpResponse(null, { status: 204 })
        : HttpResponse.json({ errors: ['Unavailable'] }, { status: deleteStatus });
    }),
  );
  return seen;
}

describe('a slot that holds one file', () => {
  beforeEach(() => vi.useFakeTimers({ shouldAdvanceTime: true }));
  afterEach(() => {
    for (const { key } of waitingDeletesNow()) waitingDeletes.undo(key);
    vi.useRealTimers();
  });

  it('replaces the file in use: the old one is removed only once the new one is stored, after the undo window', async () => {
    const seen = recordRequests(201);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderDeckSlot([deck(11, 'deck-1.pdf')]);
    expect(screen.getByText(/Holds one file: a new upload replaces it/)).toBeTruthy();
    // The live drop area loads on demand; its button then says what it does.
    await screen.findByRole('button', { name: 'Replace pitch deck' });
    await user.upload(screen.getByTestId('input-pitch_deck'), newDeck());
    expect(await screen.findByText('Replaced deck-1.pdf with deck-2.pdf.')).toBeTruthy();
    await act(() => vi.advanceTimersByTimeAsync(undoWindowMs - 100));
    expect(seen).toEqual(['POST']);
    await act(() => vi.advanceTimersByTimeAsync(100));
    await waitFor(() => expect(seen).toEqual(['POST', 'DELETE 11 "e11"']));
  });

  it('takes a replace back with Undo: the new file goes, the old one stays in use', async () => {
    const seen = recordRequests(201);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderDeckSlot([deck(11, 'deck-1.pdf')]);
    await user.upload(await screen.findByTestId('input-pitch_deck'), newDeck());
    await user.click(await screen.findByRole('button', { name: 'Undo replacing deck-1.pdf' }));
    await waitFor(() => expect(seen).toEqual(['POST', 'DELETE 12 ']));
    await act(() => vi.advanceTimersByTimeAsync(undoWindowMs * 2));
    // The old file was never asked to go, and it is the one shown.
    expect(seen).toEqual(['POST', 'DELETE 12 ']);
    expect(cardsIn(screen.getByRole('list', { name: 'Files' }))).toEqual(['file-11']);
  });

  it('keeps the file in use when its replacement fails, and removes nothing', async () => {
    const seen = recordRequests(503);
    const user = userEvent.setup();
    renderDeckSlot([deck(11, 'deck-1.pdf')]);
    await user.upload(await screen.findByTestId('input-pitch_deck'), newDeck());
    expect(await screen.findByText('Failed')).toBeTruthy();
    expect(seen).toEqual(['POST']);
    expect(cardsIn(screen.getByRole('list', { name: 'Files' }))).toEqual(['file-11']);
  });

  it('says so when the old file could not be removed after the new one was stored', async () => {
    recordRequests(201, 503);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderDeckSlot([deck(11, 'deck-1.pdf')]);
    await user.upload(await screen.findByTestId('input-pitch_deck'), newDeck());
    await screen.findByText('Replaced deck-1.pdf with deck-2.pdf.');
    await act(() => vi.advanceTimersByTimeAsync(undoWindowMs));
    expect(
      await screen.findByText(/^The new file is in place, but deck-1\.pdf could not be removed: /),
    ).toBeTruthy();
  });

  it('lets a finished upload give way at once, to one line that counts it and then goes', async () => {
    recordRequests(201);
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    renderDeckSlot([]);
    await user.upload(await screen.findByTestId('input-pitch_deck'), newDeck());
    expect(await screen.findByText('1 file uploaded')).toBeTruthy();
    expect(screen.queryByRole('list', { name: 'Uploads' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Dismiss/ })).toBeNull();
    await act(() => vi.advanceTimersByTimeAsync(doneSummaryMs));
    expect(screen.queryByText('1 file uploaded')).toBeNull();
  });

  it('uses one of several files chosen at once, and says so', async () => {
    const seen = recordRequests(201);
    renderDeckSlot([]);
    const choose = await screen.findByRole('button', { name: 'Choose a file for Pitch deck' });
    // Several files dropped at once (the chooser itself lets only one be picked here).
    const files = [newDeck(), new File(['%PDF-1.4 other'], 'other.pdf', { type: 'application/pdf' })];
    fireEvent.drop(choose.closest('.drop-area')!, {
      dataTransfer: {
        files,
        items: files.map((file) => ({ kind: 'file', type: file.type, getAsFile: () => file })),
        types: ['Files'],
      },
    });
    expect(await screen.findByText('Pitch deck holds one file, so only deck-2.pdf is used.')).toBeTruthy();
    await waitFor(() => expect(seen).toEqual(['POST']));
  });

  it('shows the newest file as the one in use and lists older ones apart, as not used', () => {
    renderDeckSlot([deck(11, 'deck-1.pdf'), deck(14, 'deck-3.pdf'), deck(12, 'deck-2.pdf')]);
    expect(cardsIn(screen.getByRole('list', { name: 'Files' }))).toEqual(['file-14']);
    expect(screen.getByRole('heading', { name: '2 earlier files, not used' })).toBeTruthy();
    const earlier = screen.getByRole('list', { name: 'Earlier files, not used' });
    expect(
      within(earlier)
        .getAllByRole('listitem')
        .map((item) => item.id),
    ).toEqual(['file-12', 'file-11']);
  });
});
