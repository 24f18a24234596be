import { QualityFlags } from '../../components/ui/quality-flags';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { labelOf } from '../../../shared/assets/file-types';
import { Loading } from '../../components/ui/status';
import { messageOf, NotOffered } from '../../lib/platform/errors';
import type { HistoryEntry } from '../../lib/platform/model';
import { useServices } from '../../lib/services';
import { historyQuery } from './review-queries';
import { reasonLabels } from './review-words';

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
      return `${who} rejected the accreditation${entry.reason ? ` (${reasonLabels[entry.reason].toLowerCase()})` : ''}`;
    case 'submitted':
      return `${who} sent it for review`;
    case 'reopened':
      return `${who} uploaded a new document after the decision: it needs to be sent for review again`;
    case 'address_changed':
      return `${who} changed the answer about the address on the driver's licence`;
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
 * The files a decision was made on, as they were: kept by the platform, so each opens by its id
 * (a signed download address asked for at the click, as they expire within minutes).
 */
function Evidence({ files }: { files: NonNullable<HistoryEntry['files']> }) {
  const { platform } = useServices();
  const [problem, setProblem] = useState<string | null>(null);
  async function open(id: number) {
    setProblem(null);
    try {
      const { url } = await platform.address(id);
      window.open(url, '_blank', 'noopener,noreferrer');
    } catch (error) {
      setProblem(messageOf(error));
    }
  }
  return (
    <div className="evidence">
      <p className="hint">Decided on these files:</p>
      <ul>
        {files.map((file) => (
          <li key={file.id}>
            {file.name}
            {file.fileType && ` (${labelOf(file.fileType).toLowerCase()})`}{' '}
            <QualityFlags issues={file.qualityIssues} />{' '}
            <button type="button" className="button small" onClick={() => void open(file.id)}>
              Open<span className="visually-hidden"> {file.name}</span>
            </button>
            {file.sha256 && (
              <span className="hint sha256" title="SHA-256 of the file's bytes">
                {' '}
                SHA-256 {file.sha256.slice(0, 12)}…
              </span>
            )}
          </li>
        ))}
      </ul>
      {problem && (
        <p className="field-error" role="alert">
          {problem}
        </p>
      )}
    </div>
  );
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
                  {entry.files && entry.files.length > 0 && <Evidence files={entry.files} />}
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
