import { formatSize } from '../../../lib/format';
import type { useUploads } from '../upload/use-uploads';

/**
 * "2 uploads can continue — choose the same files to resume": the slot's resumable uploads that this
 * browser started before the page last ended (a reload, a closed tab). The browser cannot keep a
 * chosen file across a reload, so the person chooses it again; the same file continues from the last
 * byte the platform holds. Discard gives one up, at the platform too.
 */
export function UnfinishedUploads({
  uploads,
  headingId,
}: {
  uploads: ReturnType<typeof useUploads>;
  /** The slot's heading: where focus goes when the last one is discarded. */
  headingId: string;
}) {
  const list = uploads.unfinished;
  if (list.length === 0) return null;
  const one = list.length === 1;

  function discard(id: string, button: HTMLElement) {
    // Focus moves to the next one's Discard (or the one before), never to the top of the page.
    const item = button.closest('li');
    const neighbour = (item?.nextElementSibling ?? item?.previousElementSibling)?.querySelector('button');
    uploads.discardUnfinished(id);
    (neighbour ?? document.getElementById(headingId))?.focus();
  }

  return (
    <div className="unfinished-uploads">
      <p>
        {one
          ? '1 upload can continue — choose the same file to resume.'
          : `${list.length} uploads can continue — choose the same files to resume.`}
      </p>
      <ul className="upload-list" aria-label="Uploads that can continue">
        {list.map((upload) => (
          <li key={upload.id} className="upload upload-unfinished">
            <span className="upload-name">{upload.name}</span>
            <span className="upload-details">
              {upload.sent === null
                ? formatSize(upload.size)
                : `${formatSize(upload.sent)} of ${formatSize(upload.size)} sent`}
            </span>
            <span className="upload-actions">
              <button
                type="button"
                className="button small"
                onClick={(event) => discard(upload.id, event.currentTarget)}
              >
                Discard<span className="visually-hidden"> {upload.name}</span>
              </button>
            </span>
          </li>
        ))}
      </ul>
    </div>
  );
}
