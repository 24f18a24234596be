import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { useEffect, useState } from 'react';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  http,
  HttpResponse,
  mockPlatform,
  platformUrl,
  problemResponse,
} from '../../../testing/platform-double';
import { deck, renderCard, thumbnailUrl } from './asset-card-testing';

/**
 * The viewer around a PDF while it opens: what shows before pdf.js has the document, where that comes
 * from, and what shows when it never opens. pdf.js itself cannot run here (no canvas, no workers in
 * jsdom), so the pages' module and the worker's are replaced at their boundary by stand-ins the test
 * opens or fails by hand; drawing the pages is the end-to-end tests' (e2e/everyday.spec.ts, "the
 * viewer shows a PDF's first page at once").
 */
type PagesProps = {
  url: string;
  bytes?: Promise<Uint8Array>;
  name: string;
  cover?: string;
  onOpened: () => void;
  onUnreadable: () => void;
};

const pdf = vi.hoisted(() => ({
  /** The pages as the viewer last drew them, with what opens or fails them. */
  pages: undefined as undefined | { props: PagesProps; open: () => void },
  workerStarted: 0,
}));

vi.mock('./pdf-pages', () => ({
  default: function StandInPdfPages(props: PagesProps) {
    const [opened, setOpened] = useState(false);
    useEffect(() => {
      pdf.pages = {
        props,
        open: () => {
          setOpened(true);
          props.onOpened();
        },
      };
    });
    return opened ? <div role="region" aria-label={`Pages of ${props.name}`} /> : null;
  },
}));

vi.mock('./pdf-worker', () => ({
  PdfWorkerFailed: class PdfWorkerFailed extends Error {},
  pdfWorkerThread: () => {
    pdf.workerStarted += 1;
    return { port: {}, failed: new Promise(() => undefined) };
  },
  forgetPdfWorkerThread: () => undefined,
}));

const server = mockPlatform();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
beforeEach(() => {
  pdf.pages = undefined;
  pdf.workerStarted = 0;
});
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const pdfUrl = `${platformUrl}/files/assets/11?expires=1&signature=s`;

/** The platform's download URLs: the PDF's own, and its thumbnail's small rendition (`thumbnail`). */
function addresses(thumbnail: () => Response = () => HttpResponse.json({ url: thumbnailUrl })) {
  const asked: string[] = [];
  server.use(
    http.get(`${platformUrl}/v2/core/assets/11/download_url`, ({ request }) => {
      asked.push(`11${new URL(request.url).search}`);
      return HttpResponse.json({ url: pdfUrl });
    }),
    http.get(`${platformUrl}/v2/core/assets/12/download_url`, ({ request }) => {
      asked.push(`12${new URL(request.url).search}`);
      return thumbnail();
    }),
  );
  return asked;
}

async function openViewer() {
  fireEvent.click(screen.getByRole('button', { name: /^Open deck\.pdf$/ }));
  return screen.findByRole('dialog', { name: 'deck.pdf' });
}

/** The picture standing in for page 1 inside the viewer (decorative: the words say what opens). */
const coverIn = (viewer: HTMLElement) => viewer.querySelector<HTMLImageElement>('img.pdf-cover');

describe('the viewer opening a PDF', () => {
  it("shows page 1 as the card's thumbnail at once, without asking for it again, until the pages open", async () => {
    const asked = addresses();
    renderCard(deck);
    await screen.findByRole('img', { name: 'Preview of deck.pdf' });

    const viewer = await openViewer();
    // Before pdf.js has the document: the words, and page 1 as the picture the card already has.
    expect(within(viewer).getByText('Opening deck.pdf…')).toBeTruthy();
    expect(coverIn(viewer)?.getAttribute('src')).toBe(thumbnailUrl);
    // The pages get the PDF's own address, and the same picture for page 1 until it is drawn.
    await waitFor(() => expect(pdf.pages).toBeDefined());
    expect(pdf.pages!.props.url).toBe(pdfUrl);
    expect(pdf.pages!.props.cover).toBe(thumbnailUrl);
    // The card's address was not asked for again; page 1 at the viewer's width (the window's, in
    // device pixels: 1024 here) is asked for beside it, to lay over the small one once it has loaded.
    expect(asked.filter((request) => request.startsWith('12'))).toEqual([
      '12?variant=preview&width=320',
      '12?variant=preview&width=1024',
    ]);

    // Once the document is open, its pages replace the opening state (no second cover above them).
    act(() => pdf.pages!.open());
    expect(within(viewer).getByRole('region', { name: 'Pages of deck.pdf' })).toBeTruthy();
    expect(within(viewer).queryByText('Opening deck.pdf…')).toBeNull();
    expect(coverIn(viewer)).toBeNull();
  });

  it("starts pdf.js only once page 1's sharp picture has come, and reads a small file whole beside it", async () => {
    // On a slow link pdf.js (about 400 KB) would share it with the picture and hold it back.
    const sharpUrl = `${platformUrl}/files/assets/12?variant=preview&width=1024&expires=1&signature=s`;
    addresses();
    server.use(
      http.get(`${platformUrl}/v2/core/assets/12/download_url`, ({ request }) =>
        HttpResponse.json({
          url: new URL(request.url).searchParams.get('width') === '1024' ? sharpUrl : thumbnailUrl,
        }),
      ),
      http.get(`${platformUrl}/files/assets/11`, () =>
        HttpResponse.arrayBuffer(new Uint8Array([37, 80, 68, 70]).buffer),
      ),
    );
    const decoding: { src: string; done: () => void }[] = [];
    // jsdom draws no pictures and has no decode(): the test gives the pictures one it finishes by hand.
    Object.defineProperty(HTMLImageElement.prototype, 'decode', {
      configurable: true,
      value(this: HTMLImageElement) {
        return new Promise<void>((done) => decoding.push({ src: this.src, done }));
      },
    });
    try {
      renderCard({ ...deck, size: 4 });
      const viewer = await openViewer();
      await waitFor(() => expect(decoding.map((d) => d.src)).toContain(sharpUrl));
      await waitFor(() => expect(coverIn(viewer)).not.toBeNull());
      // The picture is on its way: neither pdf.js's code nor its worker has been asked for.
      expect(pdf.workerStarted).toBe(0);
      expect(pdf.pages).toBeUndefined();

      act(() => decoding.find((d) => d.src === sharpUrl)!.done());
      await waitFor(() => expect(pdf.pages).toBeDefined());
      expect(pdf.workerStarted).toBeGreaterThanOrEqual(1);
      // A file this small is read whole, as pdf.js's code loads, not by pdf.js once its worker runs.
      expect(Array.from(await pdf.pages!.props.bytes!)).toEqual([37, 80, 68, 70]);
    } finally {
      delete (HTMLImageElement.prototype as { decode?: unknown }).decode;
    }
  });

  it('leaves a large file to pdf.js, which reads it in ranges', async () => {
    addresses();
    renderCard({ ...deck, size: 8 * 1024 * 1024 });
    await openViewer();
    await waitFor(() => expect(pdf.pages).toBeDefined());
    expect(pdf.pages!.props.bytes).toBeUndefined();
    expect(pdf.pages!.props.url).toBe(pdfUrl);
  });

  it('shows only the words while the thumbnail is still being made, and no broken picture', async () => {
    addresses(() => problemResponse(409, 'thumbnail_pending', {}, { 'Retry-After': '30' }));
    renderCard(deck);
    await screen.findByText('PDF'); // the card's type badge, standing in for the thumbnail
    const viewer = await openViewer();
    await waitFor(() => expect(pdf.pages).toBeDefined());
    expect(within(viewer).getByText('Opening deck.pdf…')).toBeTruthy();
    expect(coverIn(viewer)).toBeNull();
    expect(pdf.pages!.props.cover).toBeUndefined();
  });

  it('asks for no thumbnail when the platform made none', async () => {
    const asked = addresses();
    renderCard({ ...deck, thumbnailId: undefined });
    const viewer = await openViewer();
    await waitFor(() => expect(pdf.pages).toBeDefined());
    expect(within(viewer).getByText('Opening deck.pdf…')).toBeTruthy();
    expect(coverIn(viewer)).toBeNull();
    // Neither a thumbnail nor a preview of the PDF itself is asked for: only the PDF.
    expect(asked).toEqual(['11']);
  });

  it('says the file cannot be shown here when pdf.js cannot read it, and still offers it in a new tab', async () => {
    addresses();
    renderCard(deck);
    const viewer = await openViewer();
    await waitFor(() => expect(pdf.pages).toBeDefined());
    act(() => pdf.pages!.props.onUnreadable());
    expect(within(viewer).getByText(/This file cannot be shown here/)).toBeTruthy();
    expect(within(viewer).queryByText('Opening deck.pdf…')).toBeNull();
    expect(coverIn(viewer)).toBeNull();
    const newTab = within(viewer).getByRole('link', { name: /Open in a new tab/ });
    expect(newTab.getAttribute('href')).toBe(pdfUrl);
  });

  it('says why when the platform gives no address for the PDF', async () => {
    server.use(
      http.get(`${platformUrl}/v2/core/assets/11/download_url`, () =>
        problemResponse(404, 'not_found', { detail: 'No such asset.' }),
      ),
      http.get(`${platformUrl}/v2/core/assets/12/download_url`, () =>
        HttpResponse.json({ url: thumbnailUrl }),
      ),
    );
    renderCard(deck);
    const viewer = await openViewer();
    expect(
      await within(viewer).findByText('This was not found, or you do not have access to it.'),
    ).toBeTruthy();
    expect(within(viewer).queryByText('Opening deck.pdf…')).toBeNull();
    expect(pdf.pages).toBeUndefined();
  });
});
