import { getDocument, PDFWorker, type PDFDocumentProxy } from 'pdfjs-dist';
import { useEffect, useRef, useState } from 'react';
import { forgetPdfWorkerThread, PdfWorkerFailed, pdfWorkerThread } from './pdf-worker';

/**
 * pdf.js's handle on the page's worker thread, shared by every document: a document's `destroy` leaves
 * a worker it was given running, so opening the next PDF neither starts nor downloads another.
 */
const workers = new WeakMap<Worker, PDFWorker>();

/**
 * A PDF's pages drawn by pdf.js in the browser, each only once it scrolls into view, so a long document
 * opens as fast as its first page. pdf.js (and its worker) load only when a PDF is viewed
 * (performance.md W2): this module is loaded on demand, with pdf.js in the same chunk. The file comes
 * from its signed download URL, read in ranges where the platform allows.
 */
export default function PdfPages({
  url,
  name,
  cover,
  onOpened,
  onUnreadable,
}: {
  url: string;
  name: string;
  /** Page 1 as a picture (the platform's thumbnail), shown under its canvas until pdf.js has drawn it. */
  cover?: string;
  /** Called once the document is open and its pages are about to show (nothing shows until then). */
  onOpened: () => void;
  onUnreadable: () => void;
}) {
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const [pageRatio, setPageRatio] = useState(11 / 8.5);

  useEffect(() => {
    let cancelled = false;
    const thread = pdfWorkerThread();
    let worker = workers.get(thread.port);
    if (!worker) workers.set(thread.port, (worker = PDFWorker.create({ port: thread.port })));
    const task = getDocument({ url, isEvalSupported: false, worker });
    void (async () => {
      try {
        // A worker that never loads would leave the document waiting for ever.
        const opened = await Promise.race([task.promise, thread.failed]);
        const first = (await opened.getPage(1)).getViewport({ scale: 1 });
        if (cancelled) return;
        setPageRatio(first.height / first.width);
        setPdf(opened);
        onOpened();
      } catch (error) {
        // A damaged file, or a platform whose download URLs a page may not read (no CORS); or the
        // worker failed, and the next PDF should not inherit it.
        if (error instanceof PdfWorkerFailed) {
          workers.get(thread.port)?.destroy();
          forgetPdfWorkerThread(thread);
        }
        if (!cancelled) onUnreadable();
      }
    })();
    return () => {
      cancelled = true;
      void task.destroy();
    };
  }, [url, onOpened, onUnreadable]);

  if (!pdf) return null;
  const total = pdf.numPages;
  return (
    // Scrolls on its own beside the decision form: focusable, so the keyboard can scroll it too.
    <div className="pdf-pages" tabIndex={0} role="region" aria-label={`Pages of ${name}`}>
      <p className="hint">{total === 1 ? '1 page' : `${total} pages`}; they appear as you scroll.</p>
      <ol className="pdf-page-list">
        {Array.from({ length: total }, (_, i) => (
          <li key={i}>
            <PdfPage
              pdf={pdf}
              number={i + 1}
              total={total}
              ratio={pageRatio}
              cover={i === 0 ? cover : undefined}
            />
          </li>
        ))}
      </ol>
    </div>
  );
}

function PdfPage({
  pdf,
  number,
  total,
  ratio,
  cover,
}: {
  pdf: PDFDocumentProxy;
  number: number;
  total: number;
  ratio: number;
  cover?: string;
}) {
  const frame = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    let cancel: (() => void) | undefined;
    const observer = new IntersectionObserver(
      (entries) => {
        if (!entries.some((entry) => entry.isIntersecting)) return;
        observer.disconnect();
        void (async () => {
          const page = await pdf.getPage(number);
          const target = canvas.current;
          if (!target) return;
          const cssWidth = element.clientWidth;
          const scale = (cssWidth / page.getViewport({ scale: 1 }).width) * (window.devicePixelRatio || 1);
          const viewport = page.getViewport({ scale });
          target.width = Math.floor(viewport.width);
          target.height = Math.floor(viewport.height);
          const rendering = page.render({ canvas: target, viewport });
          cancel = () => rendering.cancel();
          await rendering.promise.then(
            () => setDrawn(true),
            () => undefined,
          );
        })();
      },
      { rootMargin: '200px' },
    );
    observer.observe(element);
    return () => {
      observer.disconnect();
      cancel?.();
    };
  }, [pdf, number]);

  return (
    <div ref={frame} className="pdf-page" style={{ aspectRatio: `1 / ${ratio}` }}>
      {cover && !drawn && <img className="pdf-cover" src={cover} alt="" />}
      <canvas ref={canvas} role="img" aria-label={`Page ${number} of ${total}`} aria-busy={!drawn} />
    </div>
  );
}
