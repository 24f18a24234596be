import type { QueryClient } from '@tanstack/react-query';
import type { Platform } from '../../../lib/platform/platform';
import type { StoredFile } from '../../../lib/platform/model';
import { previewAddressQuery, type PreviewAddress } from '../api/asset-queries';
import { pdfWorkerThread } from './pdf-worker';

/**
 * The order in which a PDF's viewer gets what it shows, on a phone's slow link (performance.md W4v):
 *
 * 1. Page 1 as the platform drew it (the PDF's thumbnail, asked for at the width the viewer shows it,
 *    in device pixels): about 30 KB, and on screen, sharp, well within the 2 s.
 * 2. Then pdf.js, its worker and the file: about 400 KB compressed, which on 1.6 Mb/s alone take two
 *    seconds and more. Started together with the picture, they would share the link with it and hold
 *    it back by as much; started after it, they lose only the picture's own time.
 *
 * Without a thumbnail (a platform that makes none, or a file type it draws none for) pdf.js starts at
 * once. Each file's order is run once, whether it starts on pointing at Open or on the viewer opening.
 */

/** Page 1's picture at the width the viewer shows it, in device pixels (the platform never enlarges). */
export const coverWidth = () => Math.ceil(Math.min(window.innerWidth, 1152) * (window.devicePixelRatio || 1));

/** The PDF's thumbnail, as the queries for its renditions name it. */
export const thumbnailOf = (file: StoredFile) =>
  file.thumbnailId === undefined ? undefined : { id: file.thumbnailId, version: file.version };

/** The address in a preview's answer; none while the thumbnail is still being made. */
export const urlOf = (data: PreviewAddress | undefined) => (data && 'url' in data ? data.url : undefined);

const loadPdfPages = () => import('./pdf-pages');

/**
 * pdf.js's code (in the pages' chunk) and its worker, fetched side by side. Never fails: a failure
 * here is met again, and shown, when the viewer renders the pages.
 */
export function loadPdfJs(): Promise<void> {
  try {
    pdfWorkerThread();
  } catch {
    // No worker could be started (a page without workers): the pages will say the PDF cannot be shown.
  }
  return loadPdfPages().then(
    () => undefined,
    () => undefined,
  );
}

/** Resolves once `url` has loaded and can be drawn, or has failed to: either way it no longer loads. */
function pictureLoaded(url: string): Promise<void> {
  const picture = new Image();
  picture.src = url;
  // decode() is missing where no picture is ever drawn (a test's DOM): nothing is then loading either.
  return typeof picture.decode === 'function' ? picture.decode().catch(() => undefined) : Promise.resolve();
}

const started = new Map<string, Promise<void>>();

/**
 * Runs the order above for `file` once: its page-1 picture loaded (the address from the query the
 * viewer then reads, so it is not asked for twice), then pdf.js. Resolves when pdf.js may start.
 */
export function preparePdf(platform: Platform, queryClient: QueryClient, file: StoredFile): Promise<void> {
  const key = `${file.id}@${file.version}`;
  let order = started.get(key);
  if (!order) {
    order = (async () => {
      const thumbnail = thumbnailOf(file);
      if (thumbnail) {
        const cover = await queryClient
          .fetchQuery(previewAddressQuery(platform, thumbnail, 'preview', coverWidth()))
          .catch(() => undefined);
        const url = urlOf(cover);
        if (url) await pictureLoaded(url);
      }
    })();
    started.set(key, order);
    // Kept only while it runs: run again later, it finds the address and the picture cached.
    void order.finally(() => started.delete(key));
  }
  return order.then(loadPdfJs);
}

/**
 * Files up to this size are read whole as soon as pdf.js may start, beside its code, rather than by
 * pdf.js once its worker runs (a round trip and the file's transfer later). Larger ones are left to
 * pdf.js, which reads them in ranges and draws page 1 before the rest has come.
 */
export const wholeFileBytes = 1024 * 1024;

/**
 * The file's bytes, read at once; rejects on a refused or failed read, which the pages meet when they
 * take the bytes (and then say the file cannot be shown). Until they take them, a failure is no error.
 */
export function readWhole(url: string): Promise<Uint8Array> {
  const bytes = fetch(url).then(async (response) => {
    if (!response.ok) throw new Error(`The PDF could not be read (${response.status})`);
    return new Uint8Array(await response.arrayBuffer());
  });
  bytes.catch(() => undefined);
  return bytes;
}
