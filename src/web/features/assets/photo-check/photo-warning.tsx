import { useEffect, useId, useRef } from 'react';
import type { QualityIssue } from '../../../../shared/assets/photo-quality';
import { problemWords } from '../../../lib/photo-quality-words';

/**
 * What the photo check found, beside the photo (issue 31): each problem in plain words with what to
 * do, then "Retake / Choose another" (the camera on a phone, the file chooser elsewhere) and "Use
 * anyway". Shown only when there is a problem. Focus comes to its heading, so a screen reader reads
 * it and the two choices are the next stops.
 */
export default function PhotoWarning({
  src,
  fileName,
  issues,
  document,
  onRetake,
  onUseAnyway,
}: {
  src: string;
  fileName: string;
  issues: QualityIssue[];
  /** "licence" or "bill": what the words talk about. */
  document: string;
  onRetake: (files: File[]) => void;
  onUseAnyway: () => void;
}) {
  const headingId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const chooser = useRef<HTMLInputElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <section className="photo-warning" aria-labelledby={headingId}>
      <img src={src} alt={`The photo you chose: ${fileName}`} className="photo-warning-preview" />
      <div>
        <h3 id={headingId} ref={heading} tabIndex={-1}>
          This photo may be hard to read
        </h3>
        <ul>
          {issues.map((issue) => (
            <li key={issue}>{problemWords(issue, document)}</li>
          ))}
        </ul>
        <div className="actions">
          <button type="button" className="button primary" onClick={() => chooser.current?.click()}>
            Retake / Choose another
          </button>
          <button type="button" className="button" onClick={onUseAnyway}>
            Use anyway
          </button>
        </div>
        <input
          ref={chooser}
          type="file"
          accept="image/*"
          capture="environment"
          className="visually-hidden"
          tabIndex={-1}
          aria-hidden="true"
          data-testid="photo-warning-retake"
          onChange={(event) => {
            const files = Array.from(event.target.files ?? []);
            event.target.value = '';
            if (files.length > 0) onRetake(files);
          }}
        />
      </div>
    </section>
  );
}
