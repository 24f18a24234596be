import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../lib/platform/errors';
import { ChangeNotSaved } from './change-not-saved';

describe('a change the platform did not make', () => {
  it('changed elsewhere (412): says which change was not saved and offers it again', async () => {
    const onApplyAgain = vi.fn();
    render(
      <ChangeNotSaved
        error={new ApiError(412, 'precondition_failed', 'stale')}
        changes={{ name: 'deck v2.pdf' }}
        onApplyAgain={onApplyAgain}
      />,
    );
    expect(screen.getByRole('alert').textContent).toContain(
      'Changed elsewhere — your rename to “deck v2.pdf” was not saved. This is the file as it is now.',
    );
    await userEvent.click(screen.getByRole('button', { name: 'Apply my rename again' }));
    expect(onApplyAgain).toHaveBeenCalledOnce();
  });

  it('names a privacy change and a crop in words', () => {
    const stale = new ApiError(412, 'precondition_failed', 'stale');
    const { rerender } = render(
      <ChangeNotSaved error={stale} changes={{ private: true }} onApplyAgain={vi.fn()} />,
    );
    expect(screen.getByText(/your change to private was not saved/)).toBeTruthy();
    rerender(<ChangeNotSaved error={stale} changes={{ meta: {} }} onApplyAgain={vi.fn()} />);
    expect(screen.getByText(/your crop was not saved/)).toBeTruthy();
    expect(screen.getByRole('button', { name: 'Apply my change again' })).toBeTruthy();
  });

  it('anything else: the change was undone, with the reason, and nothing to apply again', () => {
    render(
      <ChangeNotSaved
        error={new ApiError(422, 'invalid', 'Names may not contain a slash')}
        changes={{ name: 'a/b.pdf' }}
        onApplyAgain={vi.fn()}
      />,
    );
    expect(screen.getByRole('alert').textContent).toBe(
      'The change was undone: Names may not contain a slash',
    );
    expect(screen.queryByRole('button')).toBeNull();
  });
});
