import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { findFileType } from '../../../../shared/assets/file-types';
import { DropAreaPlaceholder, dropHint } from './drop-area-placeholder';

const logo = findFileType('logo')!;

/** A device whose pointer is a finger (`touch`) or a mouse. */
function pointer(touch: boolean) {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: touch && query === '(hover: none) and (pointer: coarse)',
  }));
}

describe('the drop hint', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('offers dropping and pasting where there is a mouse', () => {
    pointer(false);
    expect(dropHint(logo)).toBe(
      'or drop a JPEG, PNG, WebP, GIF or AVIF image here; you can also paste while the button has focus.',
    );
  });

  it('says neither "drop" nor "paste" on a touch-only device, where neither can be done', () => {
    pointer(true);
    expect(dropHint(logo)).toBe('');
    render(<DropAreaPlaceholder fileType={logo} choose="Choose a file" />);
    expect(document.body.textContent).not.toMatch(/drop|paste/i);
    expect(screen.getByText('Take a photo')).toBeTruthy();
  });
});
