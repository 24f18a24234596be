import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { createDeflate, deflateSync } from 'node:zlib';
import { pdfOf } from '../../testing/pdf';

/**
 * The PDFs of the thumbnail tests. Ordinary ones are written by pdfkit (src/testing/pdf.ts); the rest
 * are written here by hand because a test needs bytes no PDF writer would produce: an encryption no
 * password opens, a file cut short, a stream that inflates to hundreds of megabytes, a page that takes
 * a minute to draw, or a page 1 followed by megabytes the reader must not need to fetch. Objects are
 * numbered in order, the cross-reference table carries their real offsets, so the well-formed ones
 * open in any reader without repair.
 */

export interface PdfPage {
  /** In points (1/72 inch). US Letter is 612 × 792. */
  width: number;
  height: number;
  /** The page's content stream, in PDF operators. */
  content: string;
  /** Compress the content stream (FlateDecode), as real writers do. */
  compress?: boolean;
  /** The content stream already Flate-compressed (`content` is then unused). */
  deflated?: Buffer;
}

/** A PDF of the given pages; text may use /F1 (Helvetica) and /F2 (Helvetica-Bold). */
export function buildPdf(pages: PdfPage[], options: { encrypt?: boolean } = {}): Buffer {
  // 1 catalog, 2 page tree, 3 and 4 fonts, then per page: the page and its content stream.
  const objects: Buffer[] = [];
  const add = (body: string | Buffer) =>
    objects.push(typeof body === 'string' ? Buffer.from(body, 'latin1') : body);
  const pageIds = pages.map((_, i) => 5 + 2 * i);
  add('<< /Type /Catalog /Pages 2 0 R >>');
  add(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${pages.length} >>`);
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>');
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>');
  pages.forEach((page, i) => {
    add(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 ${page.width} ${page.height}] ` +
        `/Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents ${pageIds[i]! + 1} 0 R >>`,
    );
    const raw = Buffer.from(page.content, 'latin1');
    const data = page.deflated ?? (page.compress ? deflateSync(raw) : raw);
    const filter = page.compress || page.deflated ? ' /Filter /FlateDecode' : '';
    add(
      Buffer.concat([
        Buffer.from(`<< /Length ${data.length}${filter} >>\nstream\n`, 'latin1'),
        data,
        Buffer.from('\nendstream', 'latin1'),
      ]),
    );
  });

  let trailerExtra = '';
  if (options.encrypt) {
    // The standard security handler (revision 2, RC4 40-bit) with a /U entry that no password
    // produces: a reader must ask for the user password and cannot open the file without it.
    const hex = (bytes: number) => randomBytes(bytes).toString('hex');
    add(`<< /Filter /Standard /V 1 /R 2 /O <${hex(32)}> /U <${hex(32)}> /P -3904 >>`);
    trailerExtra = ` /Encrypt ${objects.length} 0 R /ID [<${hex(16)}> <${hex(16)}>]`;
  }

  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  let length = parts[0]!.length;
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(length);
    const framed = Buffer.concat([
      Buffer.from(`${i + 1} 0 obj\n`, 'latin1'),
      object,
      Buffer.from('\nendobj\n', 'latin1'),
    ]);
    parts.push(framed);
    length += framed.length;
  });
  const xref =
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((offset) => `${String(offset).padStart(10, '0')} 00000 n \n`).join('') +
    `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${trailerExtra} >>\nstartxref\n${length}\n%%EOF\n`;
  parts.push(Buffer.from(xref, 'latin1'));
  return Buffer.concat(parts);
}

/** Page 1 of US Letter: the left half filled red, the right half left white. */
export const redLeftHalf = '1 0 0 rg 0 0 306 792 re f';

/** A Letter page (612 × 792) filled with one colour, or only its left half. */
const letterPage = (color: string, half = false) => ({
  width: 612,
  height: 792,
  fills: [{ rect: [0, 0, half ? 306 : 612, 792] as [number, number, number, number], color }],
});

/** One Letter page, the left half red. */
export const redHalfPdf = () => pdfOf([letterPage('#ff0000', true)]);

/**
 * Three pages: page 1 red on the left, page 2 all blue, page 3 all green, so a thumbnail of the
 * wrong page is told apart by colour.
 */
export const threePagePdf = () =>
  pdfOf([letterPage('#ff0000', true), letterPage('#0000ff'), letterPage('#00ff00')]);

/**
 * By hand: the filler must come after page 1 as one stream of a known size, which no writer lays out
 * on request. A large PDF with a sound cross-reference table: page 1 red on the left, as `redHalfPdf`, and a
 * page 2 whose content stream brings the file to about `bytes` (a comment of filler, which no reader
 * of page 1 needs to see). What a 50 MB deck of scanned slides looks like to a reader of page 1.
 */
export const largePdf = (bytes: number) =>
  buildPdf([
    { width: 612, height: 792, content: redLeftHalf },
    { width: 612, height: 792, content: `% ${'filler '.repeat(Math.ceil(bytes / 7))}` },
  ]);

/** A landscape slide (16:9), blue on the top half: the thumbnail keeps the page's shape. */
export const landscapePdf = () =>
  pdfOf([{ width: 960, height: 540, fills: [{ rect: [0, 0, 960, 270], color: '#0000ff' }] }]);

/** Password-protected: opening it needs a user password that we do not have. */
export const encryptedPdf = () =>
  buildPdf([{ width: 612, height: 792, content: redLeftHalf }], { encrypt: true });

/** A PDF header, then noise: sniffed as a PDF, but no reader finds a document in it. */
export const garbagePdf = (bytes = 4096) => Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(bytes)]);

/** The header of a valid file, cut off before its first object: no page tree to render. */
export const truncatedPdf = () =>
  buildPdf([{ width: 612, height: 792, content: redLeftHalf }]).subarray(0, 20);

/**
 * A page whose content pdf.js cannot read whole: a stray `)` (which no operand or operator starts
 * with) stops its parser. `first`: before its first operator, an error that pdf.js drops once the
 * page has begun, drawing a blank page without a word (the way a content stream that could not be
 * decoded within the render's memory limit went). `after-blue`: after the left half is filled blue,
 * where pdf.js warns and draws the part it read. The rest of the page would fill the right half red.
 */
export const unreadablePdf = (where: 'first' | 'after-blue') =>
  buildPdf([
    {
      width: 612,
      height: 792,
      content:
        where === 'first'
          ? ') 0 0 1 rg 0 0 306 792 re f 1 0 0 rg 306 0 306 792 re f'
          : '0 0 1 rg 0 0 306 792 re f ) 1 0 0 rg 306 0 306 792 re f',
    },
  ]);

/**
 * A tiny file that is slow to draw: one page of `rectangles` filled rectangles, compressed (the
 * same operation repeated packs a thousandfold). 100 000 of them take pdf.js about 2 s, 300 000
 * about 7 s, 1 000 000 (30 KB) about a minute on a development machine: what a hostile upload
 * would look like.
 */
export const slowPdf = (rectangles = 300_000) =>
  buildPdf([
    {
      width: 612,
      height: 792,
      content: `0 0 0 rg\n${'10 10 1 1 re f\n'.repeat(rectangles)}`,
      compress: true,
    },
  ]);

/**
 * A hostile upload: a one-page PDF of a few hundred KB whose content stream inflates to `inflated`
 * bytes of whitespace (deflate packs a run of one byte about a thousandfold). A reader holds the
 * whole decoded stream while it parses the page: 300 MB took 330 MB of the platform's memory per
 * render before renders had a memory limit. Compressed a megabyte at a time, so that building it
 * does not take that memory in the test.
 */
export async function inflatingPdf(inflated = 300 * 1024 * 1024): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (chunk: Buffer) => chunks.push(chunk));
  const run = Buffer.alloc(1024 * 1024, ' ');
  for (let written = 0; written < inflated; written += run.length) {
    if (!deflate.write(run)) await once(deflate, 'drain');
  }
  deflate.end();
  await once(deflate, 'end');
  return buildPdf([{ width: 612, height: 792, content: '', deflated: Buffer.concat(chunks) }]);
}

const escapeText = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);

/**
 * Written by hand, not by pdfkit, for the benchmark's sake: its operators are the same from one
 * release to the next, so S1p/S2p figures stay comparable across the history in benchmarks.md.
 * A realistic pitch deck: 16:9 slides with a title bar, headings and body text in Helvetica,
 * bar charts, a curve and coloured boxes, content streams compressed. For the benchmark. With
 * `bytes`, a last slide of uncompressed filler brings the file to about that size (a deck of
 * scanned slides weighs tens of megabytes).
 */
export function deckPdf(slides = 12, bytes = 0): Buffer {
  const pages: PdfPage[] = [];
  for (let s = 0; s < slides; s++) {
    const lines: string[] = [
      // Title bar and title.
      '0.11 0.23 0.45 rg 0 470 960 70 re f',
      `BT /F2 32 Tf 1 1 1 rg 40 492 Td (${escapeText(`Acme Robotics - slide ${s + 1}`)}) Tj ET`,
    ];
    // Body text, two columns.
    for (let l = 0; l < 14; l++) {
      const text = `Line ${l + 1}: growth in ${2020 + (l % 6)} came from ${['retail', 'logistics', 'healthcare', 'energy'][l % 4]} customers (${(l * 7.3).toFixed(1)}%).`;
      lines.push(`BT /F1 13 Tf 0.1 0.1 0.1 rg 40 ${430 - l * 22} Td (${escapeText(text)}) Tj ET`);
    }
    // A bar chart with axes.
    lines.push('0 0 0 RG 1 w 520 60 m 520 420 l S 520 60 m 920 60 l S');
    for (let b = 0; b < 8; b++) {
      const h = 40 + ((b * 37 + s * 11) % 300);
      lines.push(
        `${(0.2 + b * 0.08).toFixed(2)} 0.5 ${(0.8 - b * 0.07).toFixed(2)} rg ${535 + b * 47} 61 36 ${h} re f`,
      );
      lines.push(`BT /F1 9 Tf 0 0 0 rg ${538 + b * 47} 45 Td (Q${(b % 4) + 1}) Tj ET`);
    }
    // A trend curve over the chart and a rounded call-out.
    lines.push('0.85 0.2 0.2 RG 3 w 530 120 m 640 300 740 180 910 390 c S');
    lines.push('0.98 0.85 0.3 rg 40 40 m 400 40 l 420 40 420 60 420 60 c 420 100 l 40 100 l h f');
    lines.push(`BT /F2 16 Tf 0.2 0.2 0.2 rg 60 65 Td (${escapeText('Raising $4.5M seed')}) Tj ET`);
    pages.push({ width: 960, height: 540, content: lines.join('\n'), compress: true });
  }
  if (bytes > 0)
    pages.push({ width: 960, height: 540, content: `% ${'filler '.repeat(Math.ceil(bytes / 7))}` });
  return buildPdf(pages);
}
