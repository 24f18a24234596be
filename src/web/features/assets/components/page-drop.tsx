import { useRef, useState, type DragEvent, type ReactNode } from 'react';
import { checkFileForSlot } from '../../../../shared/assets/file-types';
import { Dialog } from '../../../components/ui/dialog';
import { SlotTargetsContext, type SlotTarget, type SlotTargets } from '../slot-targets';

/** Where each file can go: the slots that would take it. */
export function fittingSlots(files: File[], targets: SlotTarget[]): Map<File, SlotTarget[]> {
  return new Map(
    files.map((file) => [file, targets.filter((t) => checkFileForSlot(file, t.fileType) === null)]),
  );
}

const carriesFiles = (event: DragEvent) => Array.from(event.dataTransfer.types).includes('Files');

/**
 * The whole page takes dropped files, not only each slot's own area (an empty slot is one line).
 * A file that fits one slot goes there; for one that fits several the page asks which; one that
 * fits none is refused in words. Built on the browser's drag events, so nothing loads for it
 * before a file is dropped (react-dropzone stays out of the first page).
 */
export function PageDrop({
  what,
  enabled,
  children,
}: {
  /** What the page is, for its words: "product". */
  what: string;
  /** Whether anything may be uploaded here at all. */
  enabled: boolean;
  children: ReactNode;
}) {
  // One registry for the page's life, filled by the slots as they mount (slot-targets.ts).
  const [targets] = useState<SlotTargets>(() => new Map());
  const [over, setOver] = useState(false);
  const [refused, setRefused] = useState<string[]>([]);
  // Questions still to ask, one dialog at a time: "Where does deck.pdf go?".
  const [questions, setQuestions] = useState<{ files: File[]; choices: SlotTarget[] }[]>([]);
  const asking = questions[0];
  const answered = () => setQuestions((all) => all.slice(1));
  // dragenter/dragleave fire for every child crossed: count them to know when the page is left.
  const depth = useRef(0);

  function place(files: File[]) {
    const ordered = [...targets.values()];
    const fits = fittingSlots(files, ordered);
    const nowhere = files.filter((file) => fits.get(file)!.length === 0);
    setRefused(nowhere.map((file) => `${file.name} fits none of the slots of this ${what}.`));
    const undecided: File[] = [];
    for (const file of files) {
      const slots = fits.get(file)!;
      if (slots.length === 1) slots[0]!.accept([file]);
      else if (slots.length > 1) undecided.push(file);
    }
    if (undecided.length === 0) return;
    // The slots that would take every undecided file: one question for them all, else one each.
    const common = ordered.filter((t) => undecided.every((file) => fits.get(file)!.includes(t)));
    setQuestions(
      common.length > 0
        ? [{ files: undecided, choices: common }]
        : undecided.map((file) => ({ files: [file], choices: fits.get(file)! })),
    );
  }

  return (
    <SlotTargetsContext value={targets}>
      <div
        className={over ? 'page-drop over' : 'page-drop'}
        onDragEnter={(event) => {
          if (!enabled || !carriesFiles(event)) return;
          depth.current += 1;
          setOver(true);
        }}
        onDragOver={(event) => {
          if (enabled && carriesFiles(event)) event.preventDefault();
        }}
        onDragLeave={(event) => {
          if (!carriesFiles(event)) return;
          depth.current = Math.max(0, depth.current - 1);
          if (depth.current === 0) setOver(false);
        }}
        onDrop={(event) => {
          if (!enabled || !carriesFiles(event)) return;
          event.preventDefault();
          depth.current = 0;
          setOver(false);
          place(Array.from(event.dataTransfer.files));
        }}
      >
        {over && (
          <p className="page-drop-hint" aria-hidden="true">
            Drop to add to this {what}
          </p>
        )}
        {refused.length > 0 && (
          <ul className="refusals" role="alert">
            {refused.map((reason) => (
              <li key={reason}>{reason}</li>
            ))}
          </ul>
        )}
        {children}
      </div>
      {asking && (
        <Dialog
          title={
            asking.files.length === 1
              ? `Where does ${asking.files[0]!.name} go?`
              : `Where do these ${asking.files.length} files go?`
          }
          onClose={answered}
        >
          <ul className="slot-choices">
            {asking.choices.map((target, index) => (
              <li key={target.fileType.fileType}>
                <button
                  type="button"
                  className="button"
                  {...(index === 0 ? { 'data-autofocus': true } : {})}
                  onClick={() => {
                    answered();
                    target.accept(asking.files);
                  }}
                >
                  {target.fileType.label}
                </button>
              </li>
            ))}
          </ul>
          <button type="button" className="button secondary" onClick={answered}>
            Cancel
          </button>
        </Dialog>
      )}
    </SlotTargetsContext>
  );
}
