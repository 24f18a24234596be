import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createDeferredActions, undoWindowMs } from './deferred-actions';

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('actions that wait out an undo window', () => {
  it('send nothing before the window has passed, and nothing at all once undone', async () => {
    const actions = createDeferredActions<string>();
    const sent: string[] = [];
    actions.later('a', 'first', async () => void sent.push('a'));
    actions.later('b', 'second', async () => void sent.push('b'));
    expect(actions.isWaiting('a')).toBe(true);
    await vi.advanceTimersByTimeAsync(undoWindowMs - 1);
    expect(sent).toEqual([]);
    actions.undo('b');
    expect(actions.isWaiting('b')).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(undoWindowMs * 2);
    expect(sent).toEqual(['a']);
    expect(actions.isWaiting('a')).toBe(false);
  });

  it('keep a refused action listed with its reason, its item showing again', async () => {
    const actions = createDeferredActions<string>();
    actions.later('a', 'file', async () => {
      throw new Error('deck.pdf was not deleted: it was changed elsewhere');
    });
    await vi.advanceTimersByTimeAsync(undoWindowMs);
    expect(actions.isWaiting('a')).toBe(false);
    const { result } = await import('@testing-library/react').then(({ renderHook }) =>
      renderHook(() => actions.useWaiting()),
    );
    expect(result.current).toEqual([
      { key: 'a', item: 'file', failure: 'deck.pdf was not deleted: it was changed elsewhere' },
    ]);
  });

  it('send what is waiting at once when the page goes, as requests that outlive it', async () => {
    const actions = createDeferredActions<string>();
    const sent: { key: string; leavingPage: boolean }[] = [];
    actions.later('a', 'file', async ({ leavingPage }) => void sent.push({ key: 'a', leavingPage }));
    window.dispatchEvent(new Event('pagehide'));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([{ key: 'a', leavingPage: true }]);
    await vi.advanceTimersByTimeAsync(undoWindowMs);
    expect(sent).toHaveLength(1);
  });

  it('pause while the notice is pointed at or focused, and start the whole window again after (WCAG 2.2.1)', async () => {
    const actions = createDeferredActions<string>();
    const sent: string[] = [];
    actions.later('a', 'file', async () => void sent.push('a'));
    await vi.advanceTimersByTimeAsync(undoWindowMs - 1000);
    actions.hold('a', 'pointer');
    actions.hold('a', 'focus');
    await vi.advanceTimersByTimeAsync(undoWindowMs * 3);
    expect(sent).toEqual([]);
    // The pointer leaves; focus is still inside: still held.
    actions.release('a', 'pointer');
    await vi.advanceTimersByTimeAsync(undoWindowMs * 2);
    expect(sent).toEqual([]);
    // Both gone: a whole window again, not what was left of the first.
    actions.release('a', 'focus');
    await vi.advanceTimersByTimeAsync(undoWindowMs - 1);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual(['a']);
  });

  it('stay held while focus moves within the notice, and start a whole window once it leaves', async () => {
    const actions = createDeferredActions<string>();
    const sent: string[] = [];
    actions.later('a', 'file', async () => void sent.push('a'));
    const notice = document.createElement('p');
    const undoButton = notice.appendChild(document.createElement('button'));
    const elsewhere = document.createElement('button');
    const props = actions.holdProps('a');
    props.onFocus();
    props.onBlur({ currentTarget: notice, relatedTarget: undoButton });
    await vi.advanceTimersByTimeAsync(undoWindowMs * 2);
    expect(sent).toEqual([]);
    props.onBlur({ currentTarget: notice, relatedTarget: elsewhere });
    await vi.advanceTimersByTimeAsync(undoWindowMs - 1);
    expect(sent).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(sent).toEqual(['a']);
  });

  it('send a held action too when the page goes', async () => {
    const actions = createDeferredActions<string>();
    const sent: boolean[] = [];
    actions.later('a', 'file', async ({ leavingPage }) => void sent.push(leavingPage));
    actions.hold('a', 'focus');
    window.dispatchEvent(new Event('pagehide'));
    await vi.advanceTimersByTimeAsync(0);
    expect(sent).toEqual([true]);
  });
});
