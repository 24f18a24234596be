import type { PlatformHttp } from './http';
import type { NewFile, UploadOptions } from './model';

/**
 * Nested values as bracketed form fields (`meta[crop][x]=10`): the conventional way to put an object in
 * a form, which Rails-like platforms read back as nested data. Our platform reads them too.
 */
export function appendNested(form: FormData, name: string, value: unknown): void {
  if (Array.isArray(value)) value.forEach((item) => appendNested(form, `${name}[]`, item));
  else if (typeof value === 'object' && value !== null)
    for (const [key, child] of Object.entries(value)) appendNested(form, `${name}[${key}]`, child);
  else if (value !== undefined) form.append(name, value === null ? '' : String(value));
}

/**
 * `POST /v2/core/assets` (spec 4.3) as flat multipart. The fields come before the file, so a platform
 * can refuse a bad request before reading the bytes. `private` is not in the spec's create: a platform
 * that ignores it gets a PUT afterwards (new-files.ts).
 */
export function uploadForm(upload: NewFile): FormData {
  const form = new FormData();
  form.append('file_type', upload.fileType);
  form.append('assetable_type', upload.entity.type);
  form.append('assetable_id', String(upload.entity.id));
  form.append('name', upload.file.name);
  form.append('private', String(upload.private));
  appendNested(form, 'meta', upload.meta);
  form.append('file', upload.file, upload.file.name);
  return form;
}

export interface UploadAnswer {
  status: number;
  body: string;
  etag?: string;
}

/**
 * Sends the form through XMLHttpRequest, because fetch reports no upload progress. A 401 renews the
 * session once and sends once more with the new token (H13): the old token would only fail again.
 */
export async function sendUpload(
  http: PlatformHttp,
  form: FormData,
  options: UploadOptions & { sendIdempotencyKey: boolean },
): Promise<UploadAnswer> {
  const target = http.url('/v2/core/assets');
  const first = await sendOnce(target, form, await http.accessToken(), options);
  if (first.status !== 401) return first;
  const second = await sendOnce(target, form, await http.renewedToken(), options);
  if (second.status === 401) http.endSession();
  return second;
}

function sendOnce(
  target: string,
  form: FormData,
  token: string,
  options: UploadOptions & { sendIdempotencyKey: boolean },
) {
  return new Promise<UploadAnswer>((resolve, reject) => {
    const cancelled = () => new DOMException('The upload was cancelled.', 'AbortError');
    if (options.signal.aborted) return reject(cancelled());
    const request = new XMLHttpRequest();
    request.open('POST', target);
    request.setRequestHeader('Authorization', `Bearer ${token}`);
    request.setRequestHeader('Accept', 'application/json');
    // Only where the platform's CORS allows it (or the proxy forwards): otherwise the browser would
    // refuse the whole upload (C4).
    if (options.sendIdempotencyKey) request.setRequestHeader('Idempotency-Key', options.idempotencyKey);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) options.onProgress(event.loaded, event.total);
    };
    request.onload = () =>
      resolve({
        status: request.status,
        body: request.responseText,
        etag: request.getResponseHeader('ETag') ?? undefined,
      });
    request.onerror = () => reject(new TypeError('The upload could not reach the platform.'));
    request.ontimeout = () => reject(new TypeError('The upload timed out.'));
    request.onabort = () => reject(cancelled());
    options.signal.addEventListener('abort', () => request.abort(), { once: true });
    request.send(form);
  });
}
