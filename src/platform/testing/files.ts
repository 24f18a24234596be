import { createHash } from 'node:crypto';
import sharp from 'sharp';
import { pdfOf } from '../../testing/pdf';

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

/** A small one-page PDF showing `text`. */
export const pdf = (text = 'Hello') =>
  pdfOf([{ width: 200, height: 200, text: { words: text, size: 24, at: [20, 80] } }]);

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
