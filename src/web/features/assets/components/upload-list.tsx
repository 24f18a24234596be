import { formatSize, formatSpeed, formatTimeLeft } from '../../../lib/format';
import type { useUploads, UploadItem } from '../upload/use-uploads';

const phaseWords: Record<UploadItem['phase'], string> = {
  waiting: 'Waiting',
  sending: 'Sending',
  paused: 'Paused at',
  processing: 'Processing',
  done: 'Uploaded',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

const percent = (item: UploadItem) => (item.total > 0 ? Math.floor((item.sent / item.total) * 100) : 0);

/** "12 MB of 40 MB · 850 kB/s · about 35 seconds left", while sending. */
function sendingDetails(item: UploadItem): string {
  const parts = [`${formatSize(item.sent)} of ${formatSize(item.total)}`];
  if (item.reconnecting) return [...parts, 'connection lost, trying again…'].join(' · ');
  if (item.speed !== undefined && item.speed > 0) {
    parts.push(formatSpeed(item.speed), formatTimeLeft((item.total - item.sent) / item.speed));
  }
  return parts.join(' · ');
}

/**
 * The slot's uploads with honest phases: sending with a real percentage, the speed and the time left,
 * processing while the platform works; once done a row gives way to its file's card and to one
 * fading line, "3 files uploaded". Phase changes, not every
 * percent, are announced through a polite live region. Retry is offered only where it can succeed.
 * A resumable upload has Pause and Resume: one button whose words change, so that focus stays on it.
 */
export function UploadList({ uploads }: { uploads: ReturnType<typeof useUploads> }) {
  return (
    <>
      <div className="visually-hidden" aria-live="polite" role="status">
        {uploads.announcement}
      </div>
      {uploads.finished > 0 && (
        // A new key per count restarts the fade when another file finishes.
        <p key={uploads.finished} className="upload-summary">
          {uploads.finished === 1 ? '1 file uploaded' : `${uploads.finished} files uploaded`}
        </p>
      )}
      {uploads.items.length > 0 && (
        <ul className="upload-list" aria-label="Uploads">
          {uploads.items.map((item) => (
            <li key={item.id} id={`upload-${item.id}`} className={`upload upload-${item.phase}`}>
              <span className="upload-name">{item.file.name}</span>
              <span className="upload-phase">
                {phaseWords[item.phase]}
                {item.phase === 'sending' || item.phase === 'paused' ? ` ${percent(item)}%` : ''}
              </span>
              {(item.phase === 'sending' || item.phase === 'waiting' || item.phase === 'paused') && (
                <progress max={100} value={percent(item)} aria-label={`${item.file.name} sent`} />
              )}
              {item.phase === 'sending' && <span className="upload-details">{sendingDetails(item)}</span>}
              {item.phase === 'paused' && (
                <span className="upload-details">
                  {formatSize(item.sent)} of {formatSize(item.total)} sent. Resume continues from here.
                </span>
              )}
              {item.phase === 'processing' && <progress aria-label={`${item.file.name} processing`} />}
              {item.error && <span className="field-error">{item.error}</span>}
              <span className="upload-actions">
                {item.resumable && ['waiting', 'sending', 'paused'].includes(item.phase) && (
                  <button
                    type="button"
                    className="button small"
                    onClick={() =>
                      item.phase === 'paused' ? uploads.resume(item.id) : uploads.pause(item.id)
                    }
                  >
                    {item.phase === 'paused' ? 'Resume' : 'Pause'}
                    <span className="visually-hidden"> {item.file.name}</span>
                  </button>
                )}
                {(item.phase === 'sending' || item.phase === 'waiting' || item.phase === 'paused') && (
                  <button type="button" className="button small" onClick={() => uploads.cancel(item.id)}>
                    Cancel<span className="visually-hidden"> {item.file.name}</span>
                  </button>
                )}
                {(item.phase === 'failed' || item.phase === 'cancelled') && item.retryable && (
                  <button type="button" className="button small" onClick={() => uploads.retry(item.id)}>
                    Retry<span className="visually-hidden"> {item.file.name}</span>
                  </button>
                )}
                {(item.phase === 'done' || item.phase === 'failed' || item.phase === 'cancelled') && (
                  <button type="button" className="button small" onClick={() => uploads.dismiss(item.id)}>
                    Dismiss<span className="visually-hidden"> {item.file.name}</span>
                  </button>
                )}
              </span>
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
