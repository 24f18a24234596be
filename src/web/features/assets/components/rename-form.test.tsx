import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import type { StoredFile } from '../../../lib/platform/model';
import { productFile } from '../../../testing/render-slot';
import { RenameForm } from './rename-form';

const deck: StoredFile = productFile(11, 'deck.pdf');

function renameForm() {
  const onRename = vi.fn();
  const onDone = vi.fn();
  const view = render(<RenameForm file={deck} onRename={onRename} onDone={onDone} />);
  return { onRename, onDone, view, input: screen.getByRole('textbox', { name: 'New name for deck.pdf' }) };
}

describe("a file's rename form", () => {
  it('sends the new name without the spaces around it, then closes', async () => {
    const { onRename, onDone, input } = renameForm();
    await userEvent.clear(input);
    await userEvent.type(input, '  deck v2.pdf {Enter}');
    expect(onRename).toHaveBeenCalledExactlyOnceWith('deck v2.pdf');
    expect(onDone).toHaveBeenCalledOnce();
  });

  it('sends nothing when the name is the same or empty', async () => {
    const { onRename, onDone, input } = renameForm();
    await userEvent.click(screen.getByRole('button', { name: 'Save' }));
    await userEvent.clear(input);
    await userEvent.type(input, '   {Enter}');
    expect(onRename).not.toHaveBeenCalled();
    expect(onDone).toHaveBeenCalledTimes(2);
  });

  it('closes on Escape without sending, and forgets what was typed', async () => {
    const first = renameForm();
    await userEvent.type(first.input, '-old');
    await userEvent.keyboard('{Escape}');
    expect(first.onRename).not.toHaveBeenCalled();
    expect(first.onDone).toHaveBeenCalledOnce();
    first.view.unmount();
    expect(renameForm().input).toHaveProperty('value', 'deck.pdf');
  });

  it('keeps a name being typed when the form goes away unfinished (a re-sign-in)', async () => {
    const first = renameForm();
    await userEvent.type(first.input, '-final');
    first.view.unmount();
    const second = renameForm();
    expect(second.input).toHaveProperty('value', 'deck.pdf-final');
    // Given up: the draft goes with the form.
    await userEvent.click(screen.getByRole('button', { name: 'Cancel' }));
    second.view.unmount();
    expect(renameForm().input).toHaveProperty('value', 'deck.pdf');
  });
});
