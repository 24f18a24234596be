import type { PDFDocumentProxy } from 'pdfjs-dist';
import workerUrl from 'pdfjs-dist/build/pdf.worker.min.mjs?url';
import { useEffect, useRef, useState } from 'react';

/**
 * A PDF's pages drawn by pdf.js in the browser, each only once it scrolls into view, so a long document
 * opens as fast as its first page. pdf.js (and its worker) load only when a PDF is viewed
 * (performance.md W2); the file comes from its signed download URL, read in ranges where the
 * platform allows.
 */
export default function PdfPages({
  url,
  name,
  onUnreadable,
}: {
  url: string;
  name: string;
  onUnreadable: () => void;
}) {
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const [pageRatio, setPageRatio] = useState(11 / 8.5);

  useEffect(() => {
    let task: { destroy(): Promise<void> } | undefined;
    let cancelled = false;
    void (async () => {
      try {
        const pdfjs = await import('pdfjs-dist');
        pdfjs.GlobalWorkerOptions.workerSrc = workerUrl;
        const loading = pdfjs.getDocument({ url, isEvalSupported: false });
        task = loading;
        const opened = await loading.promise;
        const first = (await opened.getPage(1)).getViewport({ scale: 1 });
        if (cancelled) return;
        setPageRatio(first.height / first.width);
        setPdf(opened);
      } catch {
        // A damaged file, or a platform whose download URLs a page may not read (no CORS).
        if (!cancelled) onUnreadable();
      }
    })();
    return () => {
      cancelled = true;
      void task?.destroy();
    };
  }, [url, onUnreadable]);

  if (!pdf)
    return (
      <p className="status" role="status">
        Opening {name}…
      </p>
    );
  const total = pdf.numPages;
  return (
    // Scrolls on its own beside the decision form: focusable, so the keyboard can scroll it too.
    <div className="pdf-pages" tabIndex={0} role="region" aria-label={`Pages of ${name}`}>
      <p className="hint">{total === 1 ? '1 page' : `${total} pages`}; they appear as you scroll.</p>
      <ol className="pdf-page-list">
        {Array.from({ length: total }, (_, i) => (
          <li key={i}>
            <PdfPage pdf={pdf} number={i + 1} total={total} ratio={pageRatio} />
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
}: {
  pdf: PDFDocumentProxy;
  number: number;
  total: number;
  ratio: number;
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
      <canvas ref={canvas} role="img" aria-label={`Page ${number} of ${total}`} aria-busy={!drawn} />
    </div>
  );
}
