import { useDropzone } from 'react-dropzone';
import { acceptFor, describeAccepts, type FileTypeInfo } from '../../../../shared/assets/file-types';

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
  onFiles,
}: {
  fileType: FileTypeInfo;
  label: string;
  onFiles: (files: File[]) => void;
}) {
  const { getRootProps, getInputProps, isDragActive } = useDropzone({
    multiple: true,
    onDrop: (accepted, rejected) => onFiles([...accepted, ...rejected.map((r) => r.file)]),
  });
  const image = fileType.documentType === 'image';
  return (
    <div className="drop-area-group">
      <div
        {...getRootProps({
          className: isDragActive ? 'drop-area active' : 'drop-area',
          role: 'button',
          'aria-label': `${label}: choose, drop or paste ${describeAccepts(fileType)}`,
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
          {...getInputProps({ accept: acceptAttribute(fileType) })}
          data-testid={`input-${fileType.fileType}`}
        />
        <span className="drop-title">
          {isDragActive ? 'Drop to upload' : 'Choose a file or drop it here'}
        </span>
        <span className="drop-hint">
          You can also paste {image ? 'an image' : 'a file'} while this box has focus.
        </span>
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
