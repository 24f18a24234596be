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

async function readText(url: string): Promise<string> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`The file could not be read (${response.status}).`);
  return response.text();
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
  else if (as === 'csv') body = <CsvTable name={file.name} text={text.data} />;
  else {
    const cut = text.data.length > textCharacterLimit;
    body = (
      <>
        {cut && (
          <p className="hint">
            The first {textCharacterLimit.toLocaleString('en')} characters; download the file for the rest.
          </p>
        )}
        <pre className="text-file">{cut ? text.data.slice(0, textCharacterLimit) : text.data}</pre>
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

function CsvTable({ name, text }: { name: string; text: string }) {
  const { rows, more } = csvRows(text, csvRowLimit);
  const [header, ...rest] = rows;
  if (!header) return <p>This file is empty.</p>;
  return (
    <>
      <p className="hint">
        {more
          ? `The first ${csvRowLimit} rows; download the file for the rest.`
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
