import { useInfiniteQuery } from '@tanstack/react-query';
import { labelOf } from '../../../shared/assets/file-types';
import { Loading } from '../../components/ui/status';
import { messageOf, NotOffered } from '../../lib/platform/errors';
import type { HistoryEntry } from '../../lib/platform/model';
import { useServices } from '../../lib/services';
import { historyQuery } from './review-queries';

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });

/** One entry in words: "Ada Admin approved it", "Ivy Investor renamed a file: old → new". */
function describe(entry: HistoryEntry): string {
  const who = entry.actor.name;
  const file = entry.file;
  const kind = file?.fileType ? ` (${labelOf(file.fileType).toLowerCase()})` : '';
  switch (entry.action) {
    case 'approved':
      return `${who} approved the accreditation`;
    case 'rejected':
      return `${who} did not approve the accreditation`;
    case 'reopened':
      return `${who} sent it back for review with a new document`;
    case 'file_uploaded':
      return `${who} uploaded ${file?.name ?? 'a file'}${kind}`;
    case 'file_renamed':
      return `${who} renamed ${file?.previousName ?? 'a file'} to ${file?.name ?? 'a new name'}`;
    case 'file_made_private':
      return `${who} made ${file?.name ?? 'a file'} private`;
    case 'file_made_public':
      return `${who} made ${file?.name ?? 'a file'} visible`;
    case 'file_cropped':
      return `${who} changed the crop of ${file?.name ?? 'a file'}`;
    case 'file_meta_changed':
      return `${who} changed the details of ${file?.name ?? 'a file'}`;
    case 'file_deleted':
      return `${who} deleted ${file?.name ?? 'a file'}${kind}`;
    default:
      return `${who}: ${entry.action.replaceAll('_', ' ')}`;
  }
}

/**
 * Everything that happened to an accreditation, newest first: decisions with their notes, and every
 * change to its documents. Kept by the platform, which never changes or removes an entry.
 */
export function HistoryList({ accreditationId }: { accreditationId: number }) {
  const { platform } = useServices();
  const history = useInfiniteQuery(historyQuery(platform, accreditationId));
  if (history.error instanceof NotOffered) return null;
  return (
    <section className="card history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      {history.isPending && <Loading label="Loading the history…" />}
      {history.isError && <p className="field-error">{messageOf(history.error)}</p>}
      {history.data &&
        (history.data.pages[0]?.items.length === 0 ? (
          <p className="empty">Nothing has happened yet.</p>
        ) : (
          <ol className="history-list">
            {history.data.pages
              .flatMap((page) => page.items)
              .map((entry) => (
                <li key={entry.id}>
                  <time dateTime={entry.at}>{dateTime.format(new Date(entry.at))}</time> {describe(entry)}.
                  {entry.note && <q className="history-note">{entry.note}</q>}
                </li>
              ))}
          </ol>
        ))}
      {history.hasNextPage && (
        <button
          type="button"
          className="button small"
          disabled={history.isFetchingNextPage}
          onClick={() => void history.fetchNextPage()}
        >
          {history.isFetchingNextPage ? 'Loading…' : 'Show earlier'}
        </button>
      )}
    </section>
  );
}
