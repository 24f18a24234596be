import { useQuery } from '@tanstack/react-query';
import { useRef } from 'react';
import { Loading } from '../../../components/ui/status';
import type { StoredFile } from '../../../lib/platform/model';
import { csvRows } from './csv-rows';
import { useFocusOnArrival } from './viewer-stage';

/** A table shows this many rows of a CSV file (its header among them); the file has them all. */
export const csvRowLimit = 200;
/** Text is shown up to this many characters: enough to read, not enough to stall a phone. */
export const textCharacterLimit = 200_000;

/** At most this much of a file is read: a 100 MB CSV file shows its first rows without the rest. */
const readLimitBytes = 1024 * 1024;

/**
 * The file's text, or its first megabyte where the platform answers ranges (ours does), without the
 * line cut in the middle; `cut` says the file goes on.
 */
async function readText(url: string): Promise<{ text: string; cut: boolean }> {
  const response = await fetch(url, { headers: { Range: `bytes=0-${readLimitBytes - 1}` } });
  if (!response.ok) throw new Error(`The file could not be read (${response.status}).`);
  const text = await response.text();
  const total = Number(response.headers.get('Content-Range')?.split('/')[1]);
  const cut = response.status === 206 && total > readLimitBytes;
  return { text: cut ? text.slice(0, text.lastIndexOf('\n') + 1) : text, cut };
}

/**
 * A text file as text, or a CSV file as a table of its first rows, read from the file's download URL.
 * There from the moment the viewer opens (the address may still be on its way) and focusable, so the
 * keyboard scrolls it without a Tab.
 */
export function TextView({ file, url, as }: { file: StoredFile; url?: string; as: 'text' | 'csv' }) {
  const region = useRef<HTMLDivElement>(null);
  useFocusOnArrival(region);
  const text = useQuery({
    queryKey: ['assets', file.id, 'text', file.version],
    queryFn: () => readText(url!),
    enabled: url !== undefined,
    staleTime: Infinity,
    gcTime: 60_000,
    retry: false,
  });
  let body;
  if (text.isPending) body = <Loading label={`Opening ${file.name}…`} />;
  else if (text.isError)
    body = <p>This file cannot be shown here: {text.error.message} Download it to open it.</p>;
  else if (as === 'csv') body = <CsvTable name={file.name} text={text.data.text} cut={text.data.cut} />;
  else {
    const cut = text.data.cut || text.data.text.length > textCharacterLimit;
    body = (
      <>
        {cut && <p className="hint">The beginning of the file; download it for the rest.</p>}
        <pre className="text-file">{text.data.text.slice(0, textCharacterLimit)}</pre>
      </>
    );
  }
  return (
    <div
      ref={region}
      className="text-view"
      tabIndex={0}
      role="region"
      aria-label={`Contents of ${file.name}`}
      data-autofocus=""
    >
      {body}
    </div>
  );
}

function CsvTable({ name, text, cut }: { name: string; text: string; cut: boolean }) {
  const read = csvRows(text, csvRowLimit);
  const { rows } = read;
  const more = read.more || cut;
  const [header, ...rest] = rows;
  if (!header) return <p>This file is empty.</p>;
  return (
    <>
      <p className="hint">
        {more
          ? `The first ${rows.length} rows; download the file for the rest.`
          : `${rows.length === 1 ? '1 row' : `${rows.length} rows`}, the whole file.`}
      </p>
      <table className="csv-table">
        <caption className="visually-hidden">{name}</caption>
        <thead>
          <tr>
            {header.map((cell, i) => (
              <th key={i} scope="col">
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rest.map((row, r) => (
            <tr key={r}>
              {row.map((cell, i) => (
                <td key={i}>{cell}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </>
  );
}
