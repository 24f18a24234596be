import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { describe, expect, it } from 'vitest';
import { textPagesPdf } from './pdf';

describe('the test PDF builder', () => {
  it('writes a PDF that pdf.js opens, one page per text, each page with its words', async () => {
    const bytes = await textPagesPdf(['First', 'Second']);
    const doc = await getDocument({ data: new Uint8Array(bytes) }).promise;
    expect(doc.numPages).toBe(2);
    const words = await (await doc.getPage(2)).getTextContent();
    expect(words.items.map((item) => ('str' in item ? item.str : '')).join('')).toBe('Second');
    await doc.destroy();
  });

  it('makes the same bytes from the same pages (a retried upload sends the same file)', async () => {
    expect((await textPagesPdf(['Same'])).equals(await textPagesPdf(['Same']))).toBe(true);
  });
});
