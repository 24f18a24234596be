import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { undoWindowMs } from '../../../lib/deferred-actions';
import type { StoredFile } from '../../../lib/platform/model';
import { renderWithServices } from '../../../testing/render';
import { deleteKey, waitingDeletes } from '../pending-deletes';
import { DeleteNotices } from './delete-notices';
import { shownOnly } from '../../../lib/file-lists';

const product = { type: 'Product' as const, id: 7 };
const deck: StoredFile = {
  id: 41,
  name: 'deck.pdf',
  fileType: 'pitch_deck',
  entity: product,
  private: false,
  meta: {},
  version: 'v1',
};

beforeEach(() => vi.useFakeTimers());
afterEach(() => {
  waitingDeletes.undo(deleteKey(deck.id));
  vi.useRealTimers();
});

describe('a delete waiting out its undo window', () => {
  it('is not sent while the pointer rests on its notice or focus is on its Undo, and waits a whole window after', async () => {
    const send = vi.fn(async () => undefined);
    renderWithServices(<DeleteNotices entity={product} fileType="pitch_deck" list={shownOnly(['files'])} />);
    act(() => waitingDeletes.later(deleteKey(deck.id), deck, send));
    const notice = screen.getByText(/^Deleted deck\.pdf\./);

    fireEvent.pointerMove(notice);
    await act(() => vi.advanceTimersByTimeAsync(undoWindowMs * 2));
    expect(send).not.toHaveBeenCalled();
    fireEvent.pointerLeave(notice);

    // Reached with the keyboard: the window waits while focus is on Undo.
    act(() => screen.getByRole('button', { name: 'Undo deleting deck.pdf' }).focus());
    await act(() => vi.advanceTimersByTimeAsync(undoWindowMs * 2));
    expect(send).not.toHaveBeenCalled();
    act(() => screen.getByRole('button', { name: 'Undo deleting deck.pdf' }).blur());

    await act(() => vi.advanceTimersByTimeAsync(undoWindowMs - 1));
    expect(send).not.toHaveBeenCalled();
    await act(() => vi.advanceTimersByTimeAsync(1));
    expect(send).toHaveBeenCalledOnce();
  });
});
