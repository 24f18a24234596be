import { fileTypeFromBuffer } from 'file-type';
import { contentKinds, type ContentKind } from '../../shared/assets/file-types';

export type Sniffed = { kind: ContentKind; mime: string } | { kind: 'refused'; what: string };

/** file-type's extensions for the binary kinds we accept; everything else it recognizes is refused. */
const binaryKinds: Record<string, ContentKind> = {
  jpg: 'jpeg',
  png: 'png',
  webp: 'webp',
  gif: 'gif',
  avif: 'avif',
  pdf: 'pdf',
  docx: 'docx',
  xlsx: 'xlsx',
  pptx: 'pptx',
};
const sniffed = (kind: ContentKind): Sniffed => ({ kind, mime: contentKinds[kind].mime });

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decides what a file is from its first bytes (decisions.md: never the client's MIME type or
 * extension). Text is accepted as CSV or plain text, but markup (HTML, SVG, XML) and scripts with
 * a `#!` line are refused: a browser or a shell would treat them as code.
 */
export async function sniffContent(head: Buffer, fileName: string | undefined): Promise<Sniffed> {
  const detected = await fileTypeFromBuffer(head);
  if (detected) {
    const kind = binaryKinds[detected.ext];
    return kind ? sniffed(kind) : { kind: 'refused', what: `${detected.mime} content` };
  }

  let text: string;
  try {
    // The head may end inside a multi-byte character: judge all but the last three bytes.
    text = utf8.decode(head.length > 3 ? head.subarray(0, head.length - 3) : head);
  } catch {
    return { kind: 'refused', what: 'binary content of an unknown kind' };
  }
  // Control characters other than tab, line breaks and form feed mean binary content.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0008\u000b\u000e-\u001f\u007f]/.test(text))
    return { kind: 'refused', what: 'binary content of an unknown kind' };
  const start = text.replace(/^\uFEFF/, '').trimStart();
  if (start.startsWith('<')) return { kind: 'refused', what: 'HTML, SVG or XML markup' };
  if (start.startsWith('#!')) return { kind: 'refused', what: 'a script' };
  return sniffed(fileName?.toLowerCase().endsWith('.csv') ? 'csv' : 'text');
}
