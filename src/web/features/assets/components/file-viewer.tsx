import { useQuery, useQueryClient, type QueryClient, type UseQueryResult } from '@tanstack/react-query';
import type { FileList } from '../../../lib/file-lists';
import {
  lazy,
  Suspense,
  useCallback,
  useEffect,
  useMemo,
  useRef,
  useState,
  type KeyboardEvent,
  type ReactNode,
} from 'react';
import { Dialog } from '../../../components/ui/dialog';
import { Loading } from '../../../components/ui/status';
import { formatSize } from '../../../lib/format';
import { messageOf } from '../../../lib/platform/errors';
import type { FileAddress, StoredFile } from '../../../lib/platform/model';
import type { Platform } from '../../../lib/platform/platform';
import { useServices } from '../../../lib/services';
import { addressQuery, previewAddressQuery } from '../api/asset-queries';
import { kindOf } from '../file-kind';
import { ImageView } from './image-view';
import { previewWidth } from './preview-width';
import { coverWidth, preparePdf, readWhole, thumbnailOf, urlOf, wholeFileBytes } from './pdf-opening';
import { TextView } from './text-view';
import { filesBeside } from './viewer-files';
import { typing, useFocusOnArrival } from './viewer-stage';

const PdfPages = lazy(() => import('./pdf-pages'));

/**
 * Prepares a PDF's viewing before Open is pressed (pointing at it or focusing it): page 1's picture,
 * then pdf.js, in the order pdf-opening.ts explains.
 */
export function preloadPdfViewer(platform: Platform, queryClient: QueryClient, file: StoredFile) {
  void preparePdf(platform, queryClient, file);
}

/**
 * What a PDF shows while pdf.js and the file load: its first page as the platform drew it (the
 * thumbnail: the card's small picture at once, then one sized to the screen over it), and words
 * saying it is opening. On a phone pdf.js alone is seconds of download; page 1 is on screen at once.
 */
function PdfOpening({ name, covers }: { name: string; covers: string[] }) {
  // Holds focus until the pages arrive and take it (their keys then work without a Tab).
  return (
    <div className="pdf-pages" tabIndex={-1} data-autofocus="">
      <Loading label={`Opening ${name}…`} />
      {covers.length > 0 && (
        <div className="pdf-page pdf-opening">
          {covers.map((cover) => (
            <img key={cover} className="pdf-cover" src={cover} alt="" />
          ))}
        </div>
      )}
    </div>
  );
}

/**
 * A PDF: page 1 from the platform at once, then every page drawn by pdf.js, which starts once that
 * picture is in (pdf-opening.ts). A small file is read whole as pdf.js starts, beside its code.
 */
function PdfView({ file, url }: { file: StoredFile; url?: string }) {
  const { platform } = useServices();
  const queryClient = useQueryClient();
  const [unreadable, setUnreadable] = useState(false);
  const giveUp = useCallback(() => setUnreadable(true), []);
  const [opened, setOpened] = useState(false);
  const markOpened = useCallback(() => setOpened(true), []);
  const [pdfJsMayStart, setPdfJsMayStart] = useState(false);
  const thumbnail = thumbnailOf(file) ?? { id: file.id, version: file.version };
  const hasThumbnail = file.thumbnailId !== undefined;
  // The card's own preview of the thumbnail: the same query, so no request is made for it again.
  const small = useQuery({
    ...previewAddressQuery(platform, thumbnail, 'preview', previewWidth),
    enabled: hasThumbnail,
  });
  const [width] = useState(coverWidth);
  const sharp = useQuery({
    ...previewAddressQuery(platform, thumbnail, 'preview', width),
    enabled: hasThumbnail && width > previewWidth,
  });
  const covers = [...new Set([urlOf(small.data), urlOf(sharp.data)])].filter((cover) => cover !== undefined);
  useEffect(() => {
    let current = true;
    void preparePdf(platform, queryClient, file).then(() => current && setPdfJsMayStart(true));
    return () => void (current = false);
  }, [platform, queryClient, file]);
  const readsWhole = file.size !== undefined && file.size <= wholeFileBytes;
  const bytes = useMemo(
    () => (url && pdfJsMayStart && readsWhole ? readWhole(url) : undefined),
    [url, pdfJsMayStart, readsWhole],
  );
  if (unreadable) return <CannotShow file={file} />;
  // One tree from the click until the pages are drawn, so that the cover is not put up twice.
  return (
    <>
      {!opened && <PdfOpening name={file.name} covers={covers} />}
      {url && pdfJsMayStart && (
        <Suspense fallback={null}>
          <PdfPages
            url={url}
            bytes={bytes}
            name={file.name}
            cover={covers.at(-1)}
            onOpened={markOpened}
            onUnreadable={giveUp}
          />
        </Suspense>
      )}
    </>
  );
}

/** A file the viewer does not draw (an Office file and the like): what it is, and Download. */
function CannotShow({ file }: { file: StoredFile }) {
  const region = useRef<HTMLDivElement>(null);
  useFocusOnArrival(region);
  const kind = kindOf(file);
  const facts = [kind.label, file.size === undefined ? undefined : formatSize(file.size)].filter(Boolean);
  return (
    <div ref={region} className="file-facts" tabIndex={-1} data-autofocus="">
      <p className="file-kind">{facts.join(' · ')}</p>
      <p>This file cannot be shown here. Download it to open it on your device.</p>
    </div>
  );
}

/**
 * Saves the original: from a URL the platform delivers as an attachment (the browser saves it and
 * stays on the page), or else from the bytes read here, under the file's name; where neither works
 * (a platform whose files a page may not read), the file opens in a new tab instead.
 */
async function saveFile(address: { url: string; saves: boolean }, name: string) {
  const link = document.createElement('a');
  if (address.saves) {
    link.href = address.url;
    link.click();
    return;
  }
  try {
    const response = await fetch(address.url);
    if (!response.ok) throw new Error(String(response.status));
    const blob = URL.createObjectURL(await response.blob());
    link.href = blob;
    link.download = name;
    link.click();
    setTimeout(() => URL.revokeObjectURL(blob), 60_000);
  } catch {
    window.open(address.url, '_blank', 'noopener,noreferrer');
  }
}

function DownloadButton({ file }: { file: StoredFile }) {
  const { platform } = useServices();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  async function download() {
    setBusy(true);
    setProblem(null);
    try {
      // Download URLs expire within minutes: asked for at the moment of the click.
      await saveFile(await platform.downloadAddress(file.id), file.name);
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  }
  return (
    <>
      {problem && (
        <p className="field-error" role="alert">
          Not downloaded: {problem}
        </p>
      )}
      <button type="button" className="button" onClick={() => void download()} disabled={busy}>
        Download<span className="visually-hidden"> {file.name}</span>
      </button>
    </>
  );
}

/** The file's own view, by what it can be shown as (file-kind.ts), from its signed download URL. */
function FileBody({ file, address }: { file: StoredFile; address: UseQueryResult<FileAddress> }) {
  const kind = kindOf(file).shownAs;
  if (address.isError) return <p className="field-error">{messageOf(address.error)}</p>;
  if (kind === 'pdf') return <PdfView file={file} url={address.data?.url} />;
  if (kind === 'image') return <ImageView file={file} original={address.data?.url} />;
  if (kind === null) return <CannotShow file={file} />;
  return <TextView file={file} url={address.data?.url} as={kind} />;
}

/** Previous and Next through the other files of the list, and where this one is among them. */
function FilePosition({ index, count, move }: { index: number; count: number; move: (by: number) => void }) {
  return (
    <div className="viewer-position" role="group" aria-label="Other files">
      <button type="button" className="button" onClick={() => move(-1)} disabled={index === 0}>
        Previous<span className="visually-hidden"> file</span>
      </button>
      <span aria-live="polite">
        {index + 1} of {count}
      </span>
      <button type="button" className="button" onClick={() => move(1)} disabled={index === count - 1}>
        Next<span className="visually-hidden"> file</span>
      </button>
    </div>
  );
}

/**
 * The files the viewer steps through (the list as it was when it opened: files uploaded or deleted
 * meanwhile do not move it), the one shown, and a step to another; ← and → step too.
 */
function useFileSteps(opened: StoredFile, list: FileList | undefined) {
  const queryClient = useQueryClient();
  const [files] = useState(() => (list ? filesBeside(opened, list.files(queryClient)) : [opened]));
  const [currentId, setCurrentId] = useState(opened.id);
  const index = Math.max(
    0,
    files.findIndex((f) => f.id === currentId),
  );
  const move = (by: number) => {
    const next = files[index + by];
    if (next) setCurrentId(next.id);
  };
  function onKeyDown(event: KeyboardEvent) {
    if (event.defaultPrevented || typing(event.target) || event.altKey || event.ctrlKey || event.metaKey)
      return;
    if (event.key === 'ArrowLeft' && index > 0) move(-1);
    else if (event.key === 'ArrowRight' && index < files.length - 1) move(1);
    else return;
    event.preventDefault();
  }
  return { file: files[index] ?? opened, index, count: files.length, move, onKeyDown };
}

/**
 * A file shown inside the app: an image to zoom, move and turn, with its crop outlined; a PDF page by
 * page; text; a CSV file as a table; anything else as what it is, with Download. Every file has
 * Download (the original, under its safe name). With `list`, the other files of the same entity in
 * that list are a click (Previous, Next) or a key (← →) away. Everything comes through the files'
 * signed download URLs. `aside` sits beside the file (the admins' decision form in the review queue).
 * Loaded on demand: no viewer code on the first page.
 */
export default function FileViewer({
  file: opened,
  list,
  onClose,
  aside,
}: {
  file: StoredFile;
  list?: FileList;
  onClose: () => void;
  aside?: ReactNode;
}) {
  const { platform } = useServices();
  const { file, index, count, move, onKeyDown } = useFileSteps(opened, list);
  const kind = kindOf(file).shownAs;
  const address = useQuery({ ...addressQuery(platform, file, 'original'), enabled: kind !== null });
  return (
    <Dialog title={file.name} onClose={onClose} wide className="viewer-dialog">
      <div className={aside ? 'viewer viewer-with-aside' : 'viewer'} onKeyDown={onKeyDown}>
        <div className="viewer-main">
          {/* A view of its own per file: nothing of one file's state carries over to the next. */}
          <FileBody key={file.id} file={file} address={address} />
        </div>
        {aside && <div className="viewer-aside">{aside}</div>}
      </div>
      <div className="dialog-actions viewer-actions">
        {count > 1 && <FilePosition index={index} count={count} move={move} />}
        <DownloadButton file={file} />
        {address.data && kind !== null && (
          <a className="button" href={address.data.url} target="_blank" rel="noopener noreferrer">
            Open in a new tab<span className="visually-hidden"> ({file.name})</span>
          </a>
        )}
        <button type="button" className="button primary" onClick={onClose}>
          Close
        </button>
      </div>
    </Dialog>
  );
}
