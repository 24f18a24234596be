import PDFDocument from 'pdfkit';

/**
 * The one builder of ordinary PDFs for tests, the platform's and the end-to-end ones alike: pdfkit, a
 * writer real documents come from, so the files are what pdf.js and the content sniffing meet in the
 * field. Only a test that needs a malformed or hostile file (encrypted, truncated, a bomb, a page that
 * takes minutes to draw) writes its bytes by hand (src/platform/testing/pdf-files.ts), and says why.
 */

/** One page: its size in points (1/72 inch; US Letter is 612 × 792), and what is drawn on it. */
export interface PdfPage {
  width: number;
  height: number;
  /** Rectangles filled with a colour, top-left origin: `[x, y, width, height]`. */
  fills?: { rect: [number, number, number, number]; color: string }[];
  /** A line of text in Helvetica, drawn at `at` (top-left origin). */
  text?: { words: string; size: number; at: [number, number]; color?: string };
}

/**
 * The file's creation date, which pdfkit writes into the file and its ID: fixed, so that the same pages
 * make the same bytes (a test that retries an upload sends the same file twice).
 */
const fixedDate = new Date('2026-01-01T00:00:00Z');

/** A PDF of these pages; the same pages always make the same bytes. */
export async function pdfOf(pages: PdfPage[]): Promise<Buffer> {
  const doc = new PDFDocument({
    autoFirstPage: false,
    margin: 0,
    info: { Producer: 'tests', Creator: 'tests', CreationDate: fixedDate },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  for (const page of pages) {
    doc.addPage({ size: [page.width, page.height], margin: 0 });
    for (const { rect, color } of page.fills ?? []) doc.rect(...rect).fill(color);
    if (page.text) {
      const { words, size, at, color = 'black' } = page.text;
      doc.font('Helvetica').fontSize(size).fillColor(color).text(words, at[0], at[1], { lineBreak: false });
    }
  }
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}

/**
 * Letter pages, one per text, each showing its text in large type over a red band on the lower half:
 * what a person's letter or deck looks like to the app (page-by-page viewing, thumbnails).
 */
export const textPagesPdf = (texts: string[]) =>
  pdfOf(
    texts.map((words) => ({
      width: 612,
      height: 792,
      fills: [{ rect: [0, 396, 612, 396], color: '#e63333' }],
      text: { words, size: 48, at: [72, 150] },
    })),
  );
