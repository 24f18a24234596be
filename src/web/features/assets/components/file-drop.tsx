import { useDropzone } from 'react-dropzone';
import { acceptFor, type FileTypeInfo } from '../../../../shared/assets/file-types';
import { dropHint } from './drop-area-placeholder';

/** The input's `accept`: MIME types and extensions, because CSV and Office files often come without a type. */
const acceptAttribute = (fileType: FileTypeInfo) =>
  Object.entries(acceptFor(fileType))
    .flatMap(([mime, extensions]) => [mime, ...extensions])
    .join(',');

/**
 * Drop, click (or Enter/Space), or paste files; on phones, take a photo for image slots. Every file is
 * handed on: the slot checks each against the catalog and says why it refuses one.
 *
 * Loaded on demand (performance.md W2): react-dropzone is not part of the first page.
 */
export default function FileDrop({
  fileType,
  label,
  choose,
  multiple,
  compact = false,
  onFiles,
}: {
  fileType: FileTypeInfo;
  label: string;
  /** The button's words: "Choose a file", or "Replace" where the slot holds one file and has it. */
  choose: string;
  multiple: boolean;
  /** An empty slot's one line: the button alone, no box and no hint (the page takes drops). */
  compact?: boolean;
  onFiles: (files: File[]) => void;
}) {
  // The drop area is not a button itself (a button may not contain the file input); a real button
  // inside opens the chooser, and pasting works while it has focus.
  const { getRootProps, getInputProps, isDragActive, open } = useDropzone({
    multiple,
    noClick: true,
    noKeyboard: true,
    // A drop here is this slot's alone: the page-wide drop target around it must not take it too.
    noDragEventsBubbling: true,
    onDrop: (accepted, rejected) => onFiles([...accepted, ...rejected.map((r) => r.file)]),
  });
  const image = fileType.documentType === 'image';
  const hint = compact ? '' : dropHint(fileType);
  return (
    <div className="drop-area-group">
      <div
        {...getRootProps({
          className: ['drop-area', compact && 'compact', isDragActive && 'active'].filter(Boolean).join(' '),
          onPaste: (event) => {
            const files = Array.from(event.clipboardData.files);
            if (files.length > 0) {
              event.preventDefault();
              onFiles(files);
            }
          },
        })}
      >
        <input
          {...getInputProps({ accept: acceptAttribute(fileType), 'aria-label': `${label} file` })}
          data-testid={`input-${fileType.fileType}`}
        />
        <button type="button" className="button" onClick={open}>
          {choose}
          <span className="visually-hidden">
            {' '}
            {choose === 'Replace' ? label.toLowerCase() : `for ${label}`}
          </span>
        </button>
        {hint && <span className="drop-hint">{isDragActive ? 'Drop to upload' : hint}</span>}
      </div>
      {image && (
        <label className="button camera-button">
          Take a photo
          <input
            type="file"
            accept="image/*"
            capture="environment"
            className="visually-hidden"
            onChange={(event) => {
              const files = Array.from(event.target.files ?? []);
              event.target.value = '';
              if (files.length > 0) onFiles(files);
            }}
          />
        </label>
      )}
    </div>
  );
}
