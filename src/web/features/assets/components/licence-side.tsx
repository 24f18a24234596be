import { useId, useState } from 'react';
import { sideOf } from '../../../lib/document-label';
import type { LicenceSide, StoredFile } from '../../../lib/platform/model';

const sideChoices: { side: LicenceSide; label: string }[] = [
  { side: 'front', label: 'Front' },
  { side: 'back', label: 'Back' },
  { side: 'both', label: 'One photo shows both sides' },
];

/** The side a next licence photo most likely shows: the first one not there yet. */
export function missingSide(files: StoredFile[]): LicenceSide {
  const sides = new Set(files.map(sideOf));
  return sides.has('front') && !sides.has('back') ? 'back' : 'front';
}

/**
 * The side the next licence photo shows: the person's choice, else the one still missing. `reset`
 * after an upload, as the next photo is most likely the other side.
 */
export function useNextSide(shown: StoredFile[]) {
  const [chosen, setChosen] = useState<LicenceSide | null>(null);
  return { side: chosen ?? missingSide(shown), choose: setChosen, reset: () => setChosen(null) };
}

/** "Which side does the next photo show?": front, back, or both on one photo. */
export function SideChoice({ side, onChoose }: { side: LicenceSide; onChoose: (side: LicenceSide) => void }) {
  const name = useId();
  return (
    <fieldset className="sides">
      <legend>Which side does the next photo show?</legend>
      {sideChoices.map((choice) => (
        <label key={choice.side}>
          <input
            type="radio"
            name={name}
            value={choice.side}
            checked={side === choice.side}
            onChange={() => onChoose(choice.side)}
          />{' '}
          {choice.label}
        </label>
      ))}
    </fieldset>
  );
}
