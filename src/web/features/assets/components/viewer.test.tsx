import { QueryClientProvider } from '@tanstack/react-query';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FileList } from '../../../lib/file-lists';
import type { StoredFile } from '../../../lib/platform/model';
import { ServicesContext } from '../../../lib/services';
import { http, HttpResponse, mockPlatform, platformUrl, testConfig } from '../../../testing/platform-double';
import { testServices } from '../../../testing/render';
import { AssetCard } from './asset-card';

/**
 * The viewer as a person meets it from the cards of one entity: what each kind of file opens as, the
 * picture's controls and keys from the moment it opens, stepping to the next file, and Download.
 * Layout (what fits where) is the browser's: e2e/viewer.spec.ts measures it in Chromium.
 */

const server = mockPlatform();
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  server.resetHandlers();
  vi.restoreAllMocks();
});
afterAll(() => server.close());

const entity = { type: 'Investment' as const, id: 3 };
const fileOf = (
  id: number,
  name: string,
  contentType: string,
  extra: Partial<StoredFile> = {},
): StoredFile => ({
  id,
  name,
  fileType: 'additional_document',
  entity,
  private: false,
  meta: {},
  contentType,
  version: 'v1',
  ...extra,
});

const photo = fileOf(21, 'site.png', 'image/png', { width: 800, height: 600, size: 52_000 });
const fake = fileOf(22, 'fake.pdf', 'text/plain', { size: 23 });
const table = fileOf(23, 'figures.csv', 'text/csv', { size: 4_000 });
const word = fileOf(
  24,
  'terms.docx',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  {
    size: 12_288,
  },
);

const fileUrl = (id: number, query = '') => `${platformUrl}/files/assets/${id}?expires=1&signature=s${query}`;

/** The platform: each file's download URLs (answering what was asked for), and the files' bytes. */
function platformWith(bytes: Record<number, string>) {
  const asked: string[] = [];
  server.use(
    http.get(`${platformUrl}/v2/core/assets/:id/download_url`, ({ params, request }) => {
      const search = new URL(request.url).search;
      asked.push(`${String(params.id)}${search}`);
      return HttpResponse.json({ url: fileUrl(Number(params.id), search.replace('?', '&')) });
    }),
    http.get(`${platformUrl}/files/assets/:id`, ({ params }) =>
      HttpResponse.text(bytes[Number(params.id)] ?? ''),
    ),
  );
  return asked;
}

/** The entity's files as its page lists them, each with its card. */
function renderCards(files: StoredFile[]) {
  const services = testServices(testConfig({ renditions: true }));
  const list: FileList = { queryKey: ['files'], files: () => files, changeFiles: () => undefined };
  render(
    <ServicesContext value={services}>
      <QueryClientProvider client={services.queryClient}>
        <ul>
          {files.map((file) => (
            <AssetCard key={file.id} file={file} list={list} canEdit={false} onForbidden={() => undefined} />
          ))}
        </ul>
      </QueryClientProvider>
    </ServicesContext>,
  );
}

async function open(name: string) {
  fireEvent.click(screen.getByRole('button', { name: `Open ${name}` }));
  return screen.findByRole('dialog', { name });
}

describe('what each kind of file opens as', () => {
  it('badges a text file called fake.pdf "Text", from the type the platform sniffed, and shows its words', async () => {
    platformWith({ 22: 'plain words, not a PDF' });
    renderCards([fake]);
    expect(screen.getByText('Text')).toBeTruthy();
    expect(screen.queryByText('PDF')).toBeNull();
    const viewer = await open('fake.pdf');
    expect(await within(viewer).findByText('plain words, not a PDF')).toBeTruthy();
    // The words have focus at once, so the keyboard scrolls them.
    expect(document.activeElement).toBe(within(viewer).getByRole('region', { name: 'Contents of fake.pdf' }));
  });

  it('shows a CSV file as a table of its first 200 rows, and says so', async () => {
    const rows = ['year,"revenue, net"', ...Array.from({ length: 300 }, (_, i) => `${2000 + i},${i * 10}`)];
    platformWith({ 23: rows.join('\n') });
    renderCards([table]);
    const viewer = await open('figures.csv');
    const grid = await within(viewer).findByRole('table', { name: 'figures.csv' });
    expect(
      within(grid)
        .getAllByRole('columnheader')
        .map((cell) => cell.textContent),
    ).toEqual(['year', 'revenue, net']);
    expect(within(grid).getAllByRole('row')).toHaveLength(200);
    expect(within(viewer).getByText('The first 200 rows; download the file for the rest.')).toBeTruthy();
  });

  it('reads only the beginning of a long file, in a range, and says the table stops there', async () => {
    platformWith({});
    let range: string | null = null;
    server.use(
      http.get(`${platformUrl}/files/assets/23`, ({ request }) => {
        range = request.headers.get('Range');
        // The first megabyte of a longer file, its last line cut in the middle.
        return new HttpResponse('year,revenue\n2024,1000\n2025,15', {
          status: 206,
          headers: { 'Content-Range': 'bytes 0-1048575/5000000', 'Content-Type': 'text/csv' },
        });
      }),
    );
    renderCards([table]);
    const viewer = await open('figures.csv');
    const grid = await within(viewer).findByRole('table', { name: 'figures.csv' });
    expect(range).toBe('bytes=0-1048575');
    // The cut line is left out rather than shown wrong.
    expect(within(grid).getAllByRole('row')).toHaveLength(2);
    expect(within(viewer).getByText('The first 2 rows; download the file for the rest.')).toBeTruthy();
  });

  it('describes an Office file (its kind and size) with Download, and downloads nothing by itself', async () => {
    const asked = platformWith({});
    const opened = vi.spyOn(window, 'open').mockReturnValue(null);
    const clicked = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    renderCards([word]);
    expect(screen.getByText('Word')).toBeTruthy();
    const viewer = await open('terms.docx');
    expect(within(viewer).getByText('Word document · 12 kB')).toBeTruthy();
    expect(within(viewer).getByText(/cannot be shown here/)).toBeTruthy();
    expect(within(viewer).getByRole('button', { name: 'Download terms.docx' })).toBeTruthy();
    expect(asked).toEqual([]);
    expect(opened).not.toHaveBeenCalled();
    expect(clicked).not.toHaveBeenCalled();
  });
});

describe('a picture', () => {
  it('opens fitted with focus on it: + − 0 work without a Tab, 100 % is the file’s pixels, Rotate turns it', async () => {
    const asked = platformWith({});
    renderCards([photo]);
    const viewer = await open('site.png');
    const stage = within(viewer).getByRole('group', { name: /^Picture/ });
    expect(document.activeElement).toBe(stage);
    const level = () => viewer.querySelector('.zoom-level')!.textContent;
    // Fitted: an 800 × 600 picture in a 1024 × 640 stage (jsdom lays nothing out: the viewer's guess).
    expect(level()).toBe('Zoom 107 %');
    expect(within(viewer).getByRole('button', { name: 'Fit' }).getAttribute('aria-pressed')).toBe('true');
    fireEvent.keyDown(stage, { key: '+' });
    expect(level()).toBe('Zoom 133 %');
    fireEvent.keyDown(stage, { key: '-' });
    fireEvent.keyDown(stage, { key: '-' });
    expect(level()).toBe('Zoom 85 %');
    expect(within(viewer).getByRole('button', { name: 'Zoom out' }).hasAttribute('disabled')).toBe(false);
    fireEvent.keyDown(stage, { key: '0' });
    expect(level()).toBe('Zoom 107 %');
    fireEvent.click(within(viewer).getByRole('button', { name: /^100 %/ }));
    expect(level()).toBe('Zoom 100 %');
    // Turned a quarter, 600 wide and 800 high: fitted to the stage's height now.
    fireEvent.click(within(viewer).getByRole('button', { name: /^Rotate/ }));
    expect(level()).toBe('Zoom 80 %');
    expect(viewer.querySelector<HTMLElement>('.viewer-image')!.style.transform).toBe('rotate(90deg)');
    // A rendition the size of the screen, not the original; then, past 100 %, the original as well.
    await waitFor(() => expect(within(viewer).getByRole('img', { name: 'site.png' })).toBeTruthy());
    expect(within(viewer).getByRole('img', { name: 'site.png' }).getAttribute('src')).toContain(
      'variant=preview&width=',
    );
    fireEvent.keyDown(stage, { key: '1' });
    fireEvent.keyDown(stage, { key: '+' });
    await waitFor(() => expect(asked).toContain('21'));
  });

  it('steps to the next and previous file with → and ← and the buttons, saying which of how many', async () => {
    platformWith({ 22: 'plain words' });
    renderCards([photo, fake, word]);
    const viewer = await open('site.png');
    expect(within(viewer).getByText('1 of 3')).toBeTruthy();
    expect(within(viewer).getByRole('button', { name: 'Previous file' }).hasAttribute('disabled')).toBe(true);
    fireEvent.keyDown(within(viewer).getByRole('group', { name: /^Picture/ }), { key: 'ArrowRight' });
    expect(await screen.findByRole('dialog', { name: 'fake.pdf' })).toBe(viewer);
    expect(within(viewer).getByText('2 of 3')).toBeTruthy();
    fireEvent.click(within(viewer).getByRole('button', { name: 'Next file' }));
    expect(within(viewer).getByText('3 of 3')).toBeTruthy();
    expect(within(viewer).getByText('Word document · 12 kB')).toBeTruthy();
    expect(within(viewer).getByRole('button', { name: 'Next file' }).hasAttribute('disabled')).toBe(true);
    fireEvent.keyDown(viewer.querySelector('.viewer')!, { key: 'ArrowLeft' });
    expect(within(viewer).getByText('2 of 3')).toBeTruthy();
  });

  it('downloads the original from a URL the platform delivers as an attachment', async () => {
    const asked = platformWith({});
    const clicked: string[] = [];
    vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      clicked.push(this.href);
    });
    renderCards([photo]);
    const viewer = await open('site.png');
    fireEvent.click(within(viewer).getByRole('button', { name: 'Download site.png' }));
    await waitFor(() => expect(clicked).toEqual([fileUrl(21, '&disposition=attachment')]));
    expect(asked).toContain('21?disposition=attachment');
  });
});
