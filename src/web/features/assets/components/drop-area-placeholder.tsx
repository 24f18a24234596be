import { describeAccepts, type FileTypeInfo } from '../../../../shared/assets/file-types';

/**
 * A device whose only pointer is a finger: nothing can be dragged onto the page or pasted from a
 * keyboard there, so the hint does not offer it.
 */
export const isTouchOnly = () =>
  typeof matchMedia === 'function' && matchMedia('(hover: none) and (pointer: coarse)').matches;

/**
 * The line under "Choose a file", the same in the live drop area and in its placeholder; none on a
 * touch-only device (the slot's own hint already says what it accepts).
 */
export const dropHint = (fileType: FileTypeInfo, touchOnly = isTouchOnly()) =>
  touchOnly
    ? ''
    : `or drop ${describeAccepts(fileType)} here; you can also paste while the button has focus.`;

/**
 * What stands in the drop area's place while react-dropzone loads (file-drop.tsx, on demand): the
 * same boxes and words, so that nothing on the page moves when the real one arrives (performance.md
 * W4, layout shift). Nothing here can be used yet: screen readers hear that it is loading.
 */
export function DropAreaPlaceholder({
  fileType,
  choose,
  compact = false,
}: {
  fileType: FileTypeInfo;
  choose: string;
  compact?: boolean;
}) {
  const hint = compact ? '' : dropHint(fileType);
  return (
    <div className="drop-area-group" aria-busy="true">
      <div className={compact ? 'drop-area compact' : 'drop-area'}>
        <span className="visually-hidden">Loading the upload area…</span>
        <span className="button" aria-hidden="true">
          {choose}
        </span>
        {hint && (
          <span className="drop-hint" aria-hidden="true">
            {hint}
          </span>
        )}
      </div>
      {fileType.documentType === 'image' && (
        <span className="button camera-button" aria-hidden="true">
          Take a photo
        </span>
      )}
    </div>
  );
}
