import { act, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { FileChanges } from '../../../lib/platform/model';
import { productFile } from '../../../testing/render-slot';
import { privacyWarnings } from '../privacy-warnings';
import { FilePrivacy } from './file-privacy';

const deck = productFile(11, 'deck.pdf');

/** The card's privacy, with the changes it asks for kept and each one's "settled" to call. */
function privacy(file = deck, canEdit = true) {
  const asked: { changes: FileChanges; settled?: () => void }[] = [];
  render(
    <FilePrivacy
      file={file}
      canEdit={canEdit}
      busy={false}
      change={(changes, settled) => asked.push({ changes, settled })}
    />,
  );
  return asked;
}

afterEach(() => privacyWarnings.remove(deck.id));

describe("a file's privacy on its card", () => {
  it('turns the switch at once and says who will see the file, before the platform answers', async () => {
    const asked = privacy();
    const toggle = screen.getByRole('switch', { name: 'Private' });
    expect(screen.getByText('Everyone signed in to the platform can see this file.')).toBeTruthy();
    await userEvent.click(toggle);
    expect(toggle).toHaveProperty('checked', true);
    expect(screen.getByText('Only you and the platform’s admins can see this file.')).toBeTruthy();
    expect(asked.map((a) => a.changes)).toEqual([{ private: true }]);
    // The answer came (here: refused, so the file stays as it was): the switch shows the file again.
    act(() => asked[0]!.settled!());
    expect(toggle).toHaveProperty('checked', false);
  });

  it('offers no switch where privacy changes nothing, or to whoever may not change the file', () => {
    privacy(productFile(12, 'licence.png', { entity: { type: 'Accreditation', id: 3 } }));
    expect(screen.queryByRole('switch')).toBeNull();
    expect(screen.getByText('Only you and the platform’s admins can see files here.')).toBeTruthy();
    privacy(productFile(13, 'logo.png'), false);
    expect(screen.queryAllByRole('switch')).toHaveLength(0);
    expect(screen.getByText('Everyone signed in to the platform can see this file.')).toBeTruthy();
  });

  it('warns when the platform left visible a file that should be private, and makes it private on request', async () => {
    act(() => privacyWarnings.add(deck.id));
    const asked = privacy();
    expect(screen.getByRole('alert').textContent).toContain('Visible to others: this file should be private');
    await userEvent.click(screen.getByRole('button', { name: 'Make it private (deck.pdf)' }));
    expect(asked.map((a) => a.changes)).toEqual([{ private: true }]);
  });
});
