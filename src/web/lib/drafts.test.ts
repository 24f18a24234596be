import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { hasDraft, keepDraftsThroughSignIn, useDraft } from './drafts';

describe('drafts', () => {
  it('are shared by every field showing the same draft, and gone once cleared', () => {
    const queue = renderHook(() => useDraft('review-note:7', ''));
    const viewer = renderHook(() => useDraft('review-note:7', ''));
    act(() => queue.result.current[1]('Documents check out.'));
    expect(viewer.result.current[0]).toBe('Documents check out.');
    expect(hasDraft('review-note:7')).toBe(true);
    act(() => viewer.result.current[2]());
    expect(queue.result.current[0]).toBe('');
    expect(hasDraft('review-note:7')).toBe(false);
  });

  it('are kept in the tab while the browser visits the sign-in page', () => {
    const field = renderHook(() => useDraft('rename:3', 'deck.pdf'));
    act(() => field.result.current[1]('Deck 2026.pdf'));
    keepDraftsThroughSignIn();
    expect(JSON.parse(sessionStorage.getItem('asset-manager.drafts')!)).toContainEqual([
      'rename:3',
      'Deck 2026.pdf',
    ]);
    act(() => field.result.current[2]());
  });
});
