import { createHash } from 'node:crypto';
import sharp from 'sharp';

export const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A real PNG of the given size and colour. */
export const png = (width = 64, height = 48, background = { r: 200, g: 30, b: 30 }) =>
  sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();

export const jpeg = (width = 64, height = 48) =>
  sharp({ create: { width, height, channels: 3, background: { r: 20, g: 90, b: 200 } } })
    .jpeg()
    .toBuffer();

/** A small valid one-page PDF. */
export function pdf(text = 'Hello'): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${`BT /F1 24 Tf 20 100 Td (${text}) Tj ET`.length} >>\nstream\nBT /F1 24 Tf 20 100 Td (${text}) Tj ET\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) body += `${String(offset).padStart(10, '0')} 00000 n \n`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

export const csv = () => Buffer.from('year,revenue\n2024,1000\n2025,1500\n');

export interface UploadFile {
  name: string;
  bytes: Uint8Array;
  type?: string;
}

/** multipart/form-data with the fields first (so the server can refuse before reading the file). */
export function multipartBody(fields: Record<string, string>, file?: UploadFile, wrap = false): FormData {
  const form = new FormData();
  const name = (field: string) => (wrap ? `asset[${field}]` : field);
  for (const [key, value] of Object.entries(fields)) form.append(name(key), value);
  if (file)
    form.append(
      name('file'),
      new Blob([new Uint8Array(file.bytes)], { type: file.type ?? 'application/octet-stream' }),
      file.name,
    );
  return form;
}

export const dataUrl = (bytes: Uint8Array, type = 'application/octet-stream') =>
  `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;

/** POSTs a form as a stream that takes about `ms` to send, in 20 even steps, the first at once. */
export async function pacedPost(
  url: string,
  token: string,
  form: FormData,
  ms: number,
  headers: Record<string, string> = {},
) {
  const encoded = new Response(form);
  const bytes = new Uint8Array(await encoded.arrayBuffer());
  const steps = 20;
  const step = Math.ceil(bytes.length / steps);
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (sent >= bytes.length) return controller.close();
      if (sent > 0) await new Promise((resolve) => setTimeout(resolve, ms / steps));
      controller.enqueue(bytes.subarray(sent, sent + step));
      sent += step;
    },
  });
  return fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': encoded.headers.get('content-type')!,
      ...headers,
    },
    body,
    duplex: 'half',
  } as RequestInit);
}

/**
 * A signature changed in its first character, which carries six bits of the MAC: never the same
 * signature (changing its last characters may only touch base64url's padding bits, or by chance
 * write what was there).
 */
export const alteredSignature = (signature: string) =>
  `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
