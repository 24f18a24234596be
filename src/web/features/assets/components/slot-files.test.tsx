import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { findFileType } from '../../../../shared/assets/file-types';
import { platformDouble } from '../../../testing/platform-double';
import { renderWithServices } from '../../../testing/render';
import { productFile } from '../../../testing/render-slot';
import { missingSide } from './licence-side';
import { SlotFiles } from './slot-files';
import { shownOnly } from '../../../lib/file-lists';

platformDouble();

const pitchDeck = findFileType('pitch_deck')!;
const noAnswer = () => undefined;

function slotFiles(
  shown = [productFile(14, 'deck-3.pdf')],
  earlier = [productFile(11, 'deck-1.pdf')],
  keptAs = noAnswer as (f: unknown) => string | undefined,
) {
  renderWithServices(
    <SlotFiles
      fileType={pitchDeck}
      shown={shown}
      inUse={shown[0]}
      earlier={earlier}
      list={shownOnly(['files'])}
      canEdit={false}
      onForbidden={noAnswer}
      keptAs={keptAs}
    />,
  );
}

describe("a slot's files", () => {
  it('says there is none yet', () => {
    slotFiles([], []);
    expect(screen.getByText('No pitch deck yet')).toBeTruthy();
    expect(screen.queryByRole('list')).toBeNull();
  });

  it('lists one earlier file apart, to delete when no longer needed', () => {
    slotFiles();
    expect(screen.getByRole('heading', { name: 'An earlier file, not used' })).toBeTruthy();
    expect(
      screen.getByText(/Only the newest pitch deck is used\. Delete these when you no longer need them\./),
    ).toBeTruthy();
    expect(
      within(screen.getByRole('list', { name: 'Earlier files, not used' }))
        .getAllByRole('listitem')
        .map((item) => item.id),
    ).toEqual(['file-11']);
  });

  it('says earlier files stay when a decision was made on each of them', () => {
    slotFiles(undefined, [productFile(11, 'deck-1.pdf'), productFile(12, 'deck-2.pdf')], () => 'rejection');
    expect(screen.getByRole('heading', { name: '2 earlier files, not used' })).toBeTruthy();
    expect(screen.getByText(/These stay: a decision was made on them\./)).toBeTruthy();
  });
});

describe("the side a licence's next photo shows", () => {
  const photo = (id: number, side?: string) =>
    productFile(id, `licence-${id}.jpg`, { meta: side ? { side } : {} });
  it('is the front first, then the back once the front is there, then the front again', () => {
    expect(missingSide([])).toBe('front');
    expect(missingSide([photo(1, 'front')])).toBe('back');
    expect(missingSide([photo(1, 'front'), photo(2, 'back')])).toBe('front');
    expect(missingSide([photo(1, 'both')])).toBe('front');
  });
});
