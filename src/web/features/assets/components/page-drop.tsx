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
  const [refused, setRefused] = useState<string[]>([]);
  // Questions still to ask, one dialog at a time: "Where does deck.pdf go?".
  const [questions, setQuestions] = useState<Question[]>([]);
  const asking = questions[0];
  const answered = () => setQuestions((all) => all.slice(1));
  const { over, dropZone } = useFileDrop(enabled, (files) => {
    const placed = placement(files, [...targets.values()], what);
    setRefused(placed.refused);
    for (const [target, file] of placed.fitting) target.accept([file]);
    if (placed.questions.length > 0) setQuestions(placed.questions);
  });

  return (
    <SlotTargetsContext value={targets}>
      <div className={over ? 'page-drop over' : 'page-drop'} {...dropZone}>
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
      {asking && <WhereDialog question={asking} onDone={answered} />}
    </SlotTargetsContext>
  );
}

/** Files that fit several slots, and the slots to choose from. */
interface Question {
  files: File[];
  choices: SlotTarget[];
}

/**
 * Where dropped files go: each that fits one slot goes there; those that fit none are refused in
 * words; for those that fit several, the questions to ask.
 */
function placement(files: File[], ordered: SlotTarget[], what: string) {
  const fits = fittingSlots(files, ordered);
  const nowhere = files.filter((file) => fits.get(file)!.length === 0);
  const refused = nowhere.map((file) => `${file.name} fits none of the slots of this ${what}.`);
  const fitting: [SlotTarget, File][] = [];
  const undecided: File[] = [];
  for (const file of files) {
    const slots = fits.get(file)!;
    if (slots.length === 1) fitting.push([slots[0]!, file]);
    else if (slots.length > 1) undecided.push(file);
  }
  if (undecided.length === 0) return { refused, fitting, questions: [] };
  // The slots that would take every undecided file: one question for them all, else one each.
  const common = ordered.filter((t) => undecided.every((file) => fits.get(file)!.includes(t)));
  const questions: Question[] =
    common.length > 0
      ? [{ files: undecided, choices: common }]
      : undecided.map((file) => ({ files: [file], choices: fits.get(file)! }));
  return { refused, fitting, questions };
}

/** The drag events of an area that takes dropped files, and whether files are being dragged over it. */
function useFileDrop(enabled: boolean, onFiles: (files: File[]) => void) {
  const [over, setOver] = useState(false);
  // dragenter/dragleave fire for every child crossed: count them to know when the page is left.
  const depth = useRef(0);
  const dropZone = {
    onDragEnter(event: DragEvent) {
      if (!enabled || !carriesFiles(event)) return;
      depth.current += 1;
      setOver(true);
    },
    onDragOver(event: DragEvent) {
      if (enabled && carriesFiles(event)) event.preventDefault();
    },
    onDragLeave(event: DragEvent) {
      if (!carriesFiles(event)) return;
      depth.current = Math.max(0, depth.current - 1);
      if (depth.current === 0) setOver(false);
    },
    onDrop(event: DragEvent) {
      if (!enabled || !carriesFiles(event)) return;
      event.preventDefault();
      depth.current = 0;
      setOver(false);
      onFiles(Array.from(event.dataTransfer.files));
    },
  };
  return { over, dropZone };
}

/** "Where does deck.pdf go?": a button per slot that would take the files, and Cancel. */
function WhereDialog({ question, onDone }: { question: Question; onDone: () => void }) {
  return (
    <Dialog
      title={
        question.files.length === 1
          ? `Where does ${question.files[0]!.name} go?`
          : `Where do these ${question.files.length} files go?`
      }
      onClose={onDone}
    >
      <ul className="slot-choices">
        {question.choices.map((target, index) => (
          <li key={target.fileType.fileType}>
            <button
              type="button"
              className="button"
              {...(index === 0 ? { 'data-autofocus': true } : {})}
              onClick={() => {
                onDone();
                target.accept(question.files);
              }}
            >
              {target.fileType.label}
            </button>
          </li>
        ))}
      </ul>
      <button type="button" className="button secondary" onClick={onDone}>
        Cancel
      </button>
    </Dialog>
  );
}
