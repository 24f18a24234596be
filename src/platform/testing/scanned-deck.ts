import PDFDocument from 'pdfkit';
import sharp from 'sharp';

/**
 * A pitch deck as scanned or exported slides come: every page one full-bleed JPEG of its slide
 * (1920 × 1080, with the grain of a scan, so that it weighs about a megabyte as real ones do) and the
 * slide's words laid over it as invisible text, the way OCR leaves them. Written by pdfkit, a
 * writer real documents come from, rather than by hand: its cross-reference table, object order
 * and image streams are what pdf.js meets in the field. Slides are added until the file reaches
 * `bytes`, so a reader of page 1 needs its first slide's image and little else.
 */
export async function scannedDeckPdf(bytes: number): Promise<Buffer> {
  const doc = new PDFDocument({ size: [960, 540], margin: 0, autoFirstPage: false, compress: true });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const ended = new Promise<void>((resolve, reject) => {
    doc.on('end', resolve);
    doc.on('error', reject);
  });
  let written = 0;
  for (let slide = 1; written < bytes; slide++) {
    const image = await slideJpeg(slide);
    written += image.length;
    doc.addPage();
    doc.image(image, 0, 0, { width: 960, height: 540 });
    // The words of the slide, invisible over its picture (rendering mode 3), as OCR writes them.
    doc.addContent('3 Tr');
    doc.font('Helvetica').fontSize(28).fillColor('black').text(title(slide), 40, 28, { lineBreak: false });
    doc.addContent('0 Tr');
  }
  doc.end();
  await ended;
  return Buffer.concat(chunks);
}

const title = (slide: number) => `Acme Robotics - slide ${slide}`;

/** One slide as a camera or scanner sees it: title bar, text, a bar chart, and grain over all. */
async function slideJpeg(slide: number): Promise<Buffer> {
  const bars = Array.from({ length: 8 }, (_, b) => {
    const height = 80 + ((b * 73 + slide * 29) % 560);
    return `<rect x="${1060 + b * 96}" y="${960 - height}" width="70" height="${height}" fill="hsl(${200 + b * 12} 60% 45%)"/>`;
  }).join('');
  const lines = Array.from(
    { length: 12 },
    (_, l) =>
      `<text x="80" y="${300 + l * 52}" font-family="sans-serif" font-size="30" fill="#222">Line ${l + 1}: growth came from customers in ${2020 + (l % 6)}</text>`,
  ).join('');
  const svg = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="1080">` +
      `<rect width="1920" height="1080" fill="#fbfaf6"/><rect width="1920" height="150" fill="#1c3a73"/>` +
      `<text x="80" y="100" font-family="sans-serif" font-size="64" font-weight="bold" fill="#fff">${title(slide)}</text>` +
      `${lines}<path d="M1040 960 H1860 M1040 960 V300" stroke="#000" stroke-width="3"/>${bars}</svg>`,
  );
  const { data, info } = await sharp(svg).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  // Grain: every sample moved by up to ±32, from a xorshift generator seeded by the slide (the
  // same deck every time). It is what makes a scan weigh a megabyte: JPEG packs clean slides tight.
  let state = 2_463_534_242 ^ slide;
  for (let i = 0; i < data.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const sample = data[i]! + ((state & 0x3f) - 32);
    data[i] = sample < 0 ? 0 : sample > 255 ? 255 : sample;
  }
  return sharp(data, { raw: info }).jpeg({ quality: 92 }).toBuffer();
}
