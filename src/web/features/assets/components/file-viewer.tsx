import { useQuery } from '@tanstack/react-query';
import { lazy, Suspense, useCallback, useEffect, useState, type ReactNode } from 'react';
import { Dialog } from '../../../components/ui/dialog';
import { Loading } from '../../../components/ui/status';
import { messageOf } from '../../../lib/platform/errors';
import type { StoredFile } from '../../../lib/platform/model';
import { useServices } from '../../../lib/services';
import { addressQuery, previewAddressQuery } from '../api/asset-queries';
import { viewableAs } from '../viewable';
import { ImageView } from './image-view';
import { previewWidth } from './preview-width';
import { pdfWorkerThread } from './pdf-worker';

const loadPdfPages = () => import('./pdf-pages');
const PdfPages = lazy(loadPdfPages);

/**
 * Starts fetching what showing a PDF takes — the pages' code with pdf.js, and pdf.js's worker — side by
 * side, and while the file's download URL is still being asked for, rather than one after another
 * (each step of such a chain costs a phone a round trip). Called when a PDF viewer opens, and earlier
 * when the person points at or focuses a PDF's Open button.
 */
export function preloadPdfViewer() {
  pdfWorkerThread();
  // A failure here is met again, and shown, when the viewer renders the pages.
  loadPdfPages().catch(() => undefined);
}

/**
 * What a PDF shows while pdf.js and the file load: its first page as the platform's thumbnail, where
 * it made one (the picture its card shows, in the browser's cache already), and words saying it is
 * opening. On a phone pdf.js alone is seconds of download; page 1 is on screen at once instead.
 */
function PdfOpening({ name, cover }: { name: string; cover?: string }) {
  return (
    <div className="pdf-pages">
      <Loading label={`Opening ${name}…`} />
      {cover && (
        <div className="pdf-page">
          <img className="pdf-cover" src={cover} alt="" />
        </div>
      )}
    </div>
  );
}

/**
 * A file shown inside the app: an image to zoom and move, with its crop outlined, or a PDF page by
 * page. Everything comes through the file's signed download URL. `aside` sits beside the file (the
 * admins' decision form in the review queue). Loaded on demand: no viewer code on the first page.
 */
export default function FileViewer({
  file,
  onClose,
  aside,
}: {
  file: StoredFile;
  onClose: () => void;
  aside?: ReactNode;
}) {
  const { platform } = useServices();
  const address = useQuery(addressQuery(platform, file, 'original'));
  const [unreadable, setUnreadable] = useState(false);
  const giveUp = useCallback(() => setUnreadable(true), []);
  const [opened, setOpened] = useState(false);
  const markOpened = useCallback(() => setOpened(true), []);
  const kind = viewableAs(file);
  // The card's own preview of the thumbnail: the same query, so no request is made for it again.
  const coverAddress = useQuery({
    ...previewAddressQuery(
      platform,
      { id: file.thumbnailId ?? file.id, version: file.version },
      'preview',
      previewWidth,
    ),
    enabled: kind === 'pdf' && file.thumbnailId !== undefined,
  });
  const cover = coverAddress.data && 'url' in coverAddress.data ? coverAddress.data.url : undefined;
  useEffect(() => {
    if (kind === 'pdf') preloadPdfViewer();
  }, [kind]);

  let body: ReactNode;
  if (address.isError) body = <p className="field-error">{messageOf(address.error)}</p>;
  else if (kind === 'pdf' && !unreadable)
    // One tree from the click until the pages are drawn, so that the cover is not put up twice.
    body = (
      <>
        {!opened && <PdfOpening name={file.name} cover={cover} />}
        {address.data && (
          <Suspense fallback={null}>
            <PdfPages
              url={address.data.url}
              name={file.name}
              cover={cover}
              onOpened={markOpened}
              onUnreadable={giveUp}
            />
          </Suspense>
        )}
      </>
    );
  else if (address.isPending) body = <Loading label={`Opening ${file.name}…`} />;
  else if (kind === 'image') body = <ImageView src={address.data.url} alt={file.name} crop={file.crop} />;
  else body = <p>This file cannot be shown here. Open it in a new tab to see it, or to save it.</p>;

  return (
    <Dialog title={file.name} onClose={onClose} wide className="viewer-dialog">
      <div className={aside ? 'viewer viewer-with-aside' : 'viewer'}>
        <div className="viewer-main">{body}</div>
        {aside && <div className="viewer-aside">{aside}</div>}
      </div>
      <div className="dialog-actions">
        {address.data && (
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
