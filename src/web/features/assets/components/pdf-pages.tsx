import { getDocument, PDFWorker, type PDFDocumentLoadingTask, type PDFDocumentProxy } from 'pdfjs-dist';
import { useEffect, useRef, useState, type KeyboardEvent } from 'react';
import { forgetPdfWorkerThread, PdfWorkerFailed, pdfWorkerThread } from './pdf-worker';
import { typing, useFocusOnArrival, useStageSize } from './viewer-stage';
import { ZoomSteps } from './zoom-steps';

/**
 * pdf.js's handle on the page's worker thread, shared by every document: a document's `destroy` leaves
 * a worker it was given running, so opening the next PDF neither starts nor downloads another.
 */
const workers = new WeakMap<Worker, PDFWorker>();

/**
 * A PDF's pages drawn by pdf.js in the browser, each only once it scrolls into view, so a long document
 * opens as fast as its first page. pdf.js (and its worker) load only when a PDF is viewed
 * (performance.md W2): this module is loaded on demand, with pdf.js in the same chunk. The file comes
 * from its signed download URL: read whole beforehand when small, else by pdf.js in ranges where the
 * platform allows.
 */
export default function PdfPages({
  url,
  bytes,
  name,
  cover,
  onOpened,
  onUnreadable,
}: {
  url: string;
  /** The whole file, already being read (a small one: pdf-opening.ts); else pdf.js reads `url`. */
  bytes?: Promise<Uint8Array>;
  name: string;
  /** Page 1 as a picture (the platform's thumbnail), shown under its canvas until pdf.js has drawn it. */
  cover?: string;
  /** Called once the document is open and its pages are about to show (nothing shows until then). */
  onOpened: () => void;
  onUnreadable: () => void;
}) {
  const [pdf, setPdf] = useState<PDFDocumentProxy | null>(null);
  const [pageRatio, setPageRatio] = useState(11 / 8.5);
  const [pageWidthPt, setPageWidthPt] = useState(612);

  useEffect(() => {
    let cancelled = false;
    let task: PDFDocumentLoadingTask | undefined;
    const thread = pdfWorkerThread();
    let worker = workers.get(thread.port);
    if (!worker) workers.set(thread.port, (worker = PDFWorker.create({ port: thread.port })));
    const opening = worker;
    void (async () => {
      try {
        // pdf.js hands the bytes to its worker (they are gone here after), so it gets a copy: the
        // same promise serves the effect again (React's development run, a remount).
        const data = bytes ? (await bytes).slice() : undefined;
        if (cancelled) return;
        task = getDocument({ ...(data ? { data } : { url }), isEvalSupported: false, worker: opening });
        // A worker that never loads would leave the document waiting for ever.
        const opened = await Promise.race([task.promise, thread.failed]);
        const first = (await opened.getPage(1)).getViewport({ scale: 1 });
        if (cancelled) return;
        setPageRatio(first.height / first.width);
        setPageWidthPt(first.width);
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
      void task?.destroy();
    };
  }, [url, bytes, onOpened, onUnreadable]);

  if (!pdf) return null;
  return <PdfDocument pdf={pdf} name={name} pageWidthPt={pageWidthPt} ratio={pageRatio} cover={cover} />;
}

const zoomStep = 1.25;
const minZoom = 0.25;
const maxZoom = 5;
/** CSS pixels per PDF point at 100 %: a point is 1/72 inch, a CSS pixel 1/96. */
const cssPerPoint = 96 / 72;

type Zoom = 'fit' | number;

/**
 * Which page is being read ("Page N of M") as the pages scroll past: the one crossing a line 40 % down
 * the region, or the first or last at either end of the scroll, short as it may be; and going to a page.
 */
function usePageBeingRead(total: number) {
  /** The scrolling region, and each page's item in it. */
  const scroller = useRef<HTMLDivElement>(null);
  const pages = useRef<(HTMLLIElement | null)[]>([]);
  const [current, setCurrent] = useState(1);
  useEffect(() => {
    const root = scroller.current;
    if (!root || typeof IntersectionObserver === 'undefined') return;
    const observer = new IntersectionObserver(
      (entries) => {
        const crossing = entries.find((entry) => entry.isIntersecting);
        if (crossing) setCurrent(Number((crossing.target as HTMLElement).dataset.page));
      },
      { root, rootMargin: '-40% 0px -59% 0px' },
    );
    for (const page of pages.current) if (page) observer.observe(page);
    return () => observer.disconnect();
  }, [scroller, pages, total]);

  function onScroll() {
    const root = scroller.current;
    if (!root) return;
    if (root.scrollTop <= 0) setCurrent(1);
    else if (root.scrollTop + root.clientHeight >= root.scrollHeight - 2) setCurrent(total);
  }

  function goTo(page: number) {
    const target = Math.min(total, Math.max(1, Math.round(page)));
    const element = pages.current[target - 1];
    const root = scroller.current;
    if (element && root) root.scrollTop = element.offsetTop - root.offsetTop;
    setCurrent(target);
  }

  return { scroller, pages, current, onScroll, goTo };
}

/** "Go to page" with its number field: a page past either end goes to that end. */
function GoToPage({ total, goTo }: { total: number; goTo: (page: number) => void }) {
  const [goal, setGoal] = useState('');
  return (
    <form
      className="go-to-page"
      onSubmit={(event) => {
        event.preventDefault();
        const page = Number(goal);
        if (Number.isFinite(page) && goal !== '') goTo(page);
      }}
    >
      <label>
        Go to page{' '}
        <input
          type="number"
          inputMode="numeric"
          min={1}
          max={total}
          value={goal}
          onChange={(event) => setGoal(event.target.value)}
        />
      </label>
      <button type="submit" className="button small">
        Go
      </button>
    </form>
  );
}

/** The zoom's steps (zoom-steps.tsx), fit the width, and 100 % (the printed size). */
function ZoomControls({
  scale,
  zoom,
  setZoom,
}: {
  scale: number;
  zoom: Zoom;
  setZoom: (zoom: Zoom) => void;
}) {
  return (
    <>
      <ZoomSteps
        scale={scale}
        step={zoomStep}
        min={minZoom}
        max={maxZoom}
        onZoom={(next) => setZoom(clampZoom(next))}
      />
      <button
        type="button"
        className="button small"
        onClick={() => setZoom('fit')}
        aria-pressed={zoom === 'fit'}
      >
        Fit width
      </button>
      <button
        type="button"
        className="button small"
        onClick={() => setZoom(1)}
        aria-pressed={zoom === 1}
        aria-label="100 %: the page's printed size"
      >
        100 %
      </button>
    </>
  );
}

/** The controls above the pages: the page being read, going to a page, and the zoom. */
function PdfToolbar({
  current,
  total,
  goTo,
  ...zoom
}: {
  current: number;
  total: number;
  goTo: (page: number) => void;
  scale: number;
  zoom: Zoom;
  setZoom: (zoom: Zoom) => void;
}) {
  return (
    <div className="viewer-controls" role="toolbar" aria-label="Pages and zoom">
      <span className="page-number" aria-live="polite">
        Page {current} of {total}
      </span>
      <GoToPage total={total} goTo={goTo} />
      <ZoomControls {...zoom} />
    </div>
  );
}

const clampZoom = (zoom: number) => Math.min(maxZoom, Math.max(minZoom, zoom));

/**
 * The pages in a scrolling region with what moves about them: "Page N of M" as they scroll past, going
 * to a page, zoom (fit the width, 100 % = the page's printed size, steps), and keys: Page Up/Down,
 * Home/End, + − 0. The region has focus when it opens.
 */
function PdfDocument({
  pdf,
  name,
  pageWidthPt,
  ratio,
  cover,
}: {
  pdf: PDFDocumentProxy;
  name: string;
  pageWidthPt: number;
  ratio: number;
  cover?: string;
}) {
  const total = pdf.numPages;
  const { scroller, pages, current, onScroll, goTo } = usePageBeingRead(total);
  const [zoom, setZoom] = useState<Zoom>('fit');
  const measured = useStageSize(scroller);
  useFocusOnArrival(scroller);

  const fitWidth = Math.max(100, (measured?.width ?? 800) - 2);
  const actualWidth = pageWidthPt * cssPerPoint;
  const width = Math.round(zoom === 'fit' ? fitWidth : actualWidth * zoom);
  const scale = width / actualWidth;

  function onKeyDown(event: KeyboardEvent) {
    const keys: Record<string, () => void> = {
      PageDown: () => goTo(current + 1),
      PageUp: () => goTo(current - 1),
      Home: () => goTo(1),
      End: () => goTo(total),
      '+': () => setZoom(clampZoom(scale * zoomStep)),
      '=': () => setZoom(clampZoom(scale * zoomStep)),
      '-': () => setZoom(clampZoom(scale / zoomStep)),
      '0': () => setZoom('fit'),
    };
    const action = keys[event.key];
    if (!action || typing(event.target) || event.altKey || event.ctrlKey || event.metaKey) return;
    action();
    event.preventDefault();
  }

  return (
    // The keys work wherever focus is in the view (the pages, or a button just pressed).
    <div className="pdf-view" onKeyDown={onKeyDown}>
      <PdfToolbar current={current} total={total} goTo={goTo} scale={scale} zoom={zoom} setZoom={setZoom} />
      {/* Scrolls on its own beside the decision form: focusable, so the keyboard scrolls it too. */}
      <div
        ref={scroller}
        className="pdf-pages"
        tabIndex={0}
        role="region"
        aria-label={`Pages of ${name}: Page Up and Page Down move a page, + and − zoom`}
        data-autofocus=""
        onScroll={onScroll}
      >
        <ol className="pdf-page-list" style={{ width }}>
          {Array.from({ length: total }, (_, i) => (
            <li key={i} data-page={i + 1} ref={(element) => void (pages.current[i] = element)}>
              <PdfPage
                pdf={pdf}
                number={i + 1}
                total={total}
                ratio={ratio}
                width={width}
                cover={i === 0 ? cover : undefined}
              />
            </li>
          ))}
        </ol>
      </div>
    </div>
  );
}

/**
 * One page, drawn by pdf.js once it comes near the visible part of the region, and drawn again at the
 * new size when the zoom changes while it is near.
 */
function PdfPage({
  pdf,
  number,
  total,
  ratio,
  width,
  cover,
}: {
  pdf: PDFDocumentProxy;
  number: number;
  total: number;
  ratio: number;
  width: number;
  cover?: string;
}) {
  const frame = useRef<HTMLDivElement>(null);
  const canvas = useRef<HTMLCanvasElement>(null);
  const [near, setNear] = useState(false);
  const [drawn, setDrawn] = useState(false);

  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const observer = new IntersectionObserver(
      (entries) => setNear(entries.some((entry) => entry.isIntersecting)),
      { rootMargin: '200px' },
    );
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  useEffect(() => {
    if (!near) return;
    let cancel: (() => void) | undefined;
    let cancelled = false;
    void (async () => {
      const page = await pdf.getPage(number);
      const target = canvas.current;
      if (!target || cancelled) return;
      const scale = (width / page.getViewport({ scale: 1 }).width) * (window.devicePixelRatio || 1);
      const viewport = page.getViewport({ scale });
      // Drawn off screen first, so the page shown does not go blank while the new size is drawn.
      const next = document.createElement('canvas');
      next.width = Math.floor(viewport.width);
      next.height = Math.floor(viewport.height);
      const rendering = page.render({ canvas: next, viewport });
      cancel = () => rendering.cancel();
      await rendering.promise.then(
        () => {
          if (cancelled) return;
          target.width = next.width;
          target.height = next.height;
          target.getContext('2d')?.drawImage(next, 0, 0);
          setDrawn(true);
        },
        () => undefined,
      );
    })();
    return () => {
      cancelled = true;
      cancel?.();
    };
  }, [pdf, number, width, near]);

  return (
    <div ref={frame} className="pdf-page" style={{ aspectRatio: `1 / ${ratio}` }}>
      {cover && !drawn && <img className="pdf-cover" src={cover} alt="" />}
      <canvas ref={canvas} role="img" aria-label={`Page ${number} of ${total}`} aria-busy={!drawn} />
    </div>
  );
}
