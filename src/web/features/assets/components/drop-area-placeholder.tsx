import { describeAccepts, type FileTypeInfo } from '../../../../shared/assets/file-types';

/** The line under "Choose a file", the same in the live drop area and in its placeholder. */
export const dropHint = (fileType: FileTypeInfo) =>
  `or drop ${describeAccepts(fileType)} here; you can also paste while the button has focus.`;

/**
 * What stands in the drop area's place while react-dropzone loads (file-drop.tsx, on demand): the
 * same boxes and words, so that nothing on the page moves when the real one arrives (performance.md
 * W4, layout shift). Nothing here can be used yet: screen readers hear that it is loading.
 */
export function DropAreaPlaceholder({ fileType, choose }: { fileType: FileTypeInfo; choose: string }) {
  return (
    <div className="drop-area-group" aria-busy="true">
      <div className="drop-area">
        <span className="visually-hidden">Loading the upload area…</span>
        <span className="button" aria-hidden="true">
          {choose}
        </span>
        <span className="drop-hint" aria-hidden="true">
          {dropHint(fileType)}
        </span>
      </div>
      {fileType.documentType === 'image' && (
        <span className="button camera-button" aria-hidden="true">
          Take a photo
        </span>
      )}
    </div>
  );
}
