import { entityPath } from '../../shared/api/entities';
import type { AssetableType, Me } from '../../shared/api/me';
import type { Asset } from '../../shared/assets/asset';
import type { ApiClient } from './api-client';
import { ApiError } from './api-error';

/**
 * Every shape the web app assumes that the spec leaves "not shown" (`/me`, entity sideloads, review)
 * is read here and nowhere else, so pointing the app at another platform changes this one file. The
 * shapes are typed from the shared contract; they are not re-validated with zod in the browser, which
 * would make zod the largest library on the first page (performance.md W1).
 */

export function fetchMe(api: ApiClient): Promise<Me> {
  return api.request<Me>('/v2/core/me');
}

export interface EntityWithAssets {
  type: AssetableType;
  id: number;
  name: string;
  assets: Asset[];
}

type EntityBody = { assets?: Asset[] } & Record<string, { id: number; name: string } | Asset[] | undefined>;

/** `GET /v2/core/<plural>/:id`: `{ "<singular>": {...}, "assets": [...] }` (decisions.md sideloads). */
export async function fetchEntity(
  api: ApiClient,
  type: AssetableType,
  id: number,
): Promise<EntityWithAssets> {
  const body = await api.request<EntityBody>(entityPath(type, id));
  const [, entity] = Object.entries(body).find(([key]) => key !== 'assets') ?? [];
  if (!entity || Array.isArray(entity)) throw new Error(`The platform sent no ${type} ${id}.`);
  return { type, id: entity.id, name: entity.name, assets: body.assets ?? [] };
}

export type AssetChanges = Partial<Pick<Asset, 'name' | 'private' | 'meta'>>;

/** `PUT /v2/core/assets/:id` (spec 4.6): only what changed; a new `meta` replaces the old one. */
export async function updateAsset(api: ApiClient, id: number, changes: AssetChanges): Promise<Asset> {
  const body = await api.request<{ asset: Asset }>(`/v2/core/assets/${id}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ asset: changes }),
  });
  return body.asset;
}

export function deleteAsset(api: ApiClient, id: number): Promise<void> {
  return api.request<void>(`/v2/core/assets/${id}`, { method: 'DELETE' });
}

/** Which file a download URL serves (decisions.md): the original, the cropped image, or a small preview. */
export type Variant = 'original' | 'cropped' | 'preview';

/** A signed, short-lived address of the file or one of its renditions (spec 4.7). */
export async function downloadUrl(api: ApiClient, id: number, variant: Variant = 'original', width?: number) {
  const query = new URLSearchParams({ variant });
  if (width !== undefined) query.set('width', String(width));
  const body = await api.request<{ url: string }>(`/v2/core/assets/${id}/download_url?${query}`);
  return body.url;
}

export interface NewAsset {
  fileType: string;
  assetableType: AssetableType;
  assetableId: number;
  private: boolean;
  meta: Record<string, unknown>;
  file: File;
}

export interface UploadOptions {
  /** The same key for every attempt of one upload: the platform then makes one asset at most. */
  idempotencyKey: string;
  /** Bytes sent so far; the last call (sent = total) means the platform is now processing. */
  onProgress: (sent: number, total: number) => void;
  signal: AbortSignal;
}

/**
 * `POST /v2/core/assets` as flat multipart (decisions.md), through XMLHttpRequest because fetch reports
 * no upload progress. The fields come before the file so the platform can refuse a bad request before
 * reading the bytes. A 401 is retried once after renewal, with the same idempotency key.
 */
export async function uploadAsset(api: ApiClient, asset: NewAsset, options: UploadOptions): Promise<Asset> {
  const form = new FormData();
  form.append('file_type', asset.fileType);
  form.append('assetable_type', asset.assetableType);
  form.append('assetable_id', String(asset.assetableId));
  form.append('private', String(asset.private));
  form.append('name', asset.file.name);
  if (Object.keys(asset.meta).length > 0) form.append('meta', JSON.stringify(asset.meta));
  form.append('file', asset.file, asset.file.name);

  const send = async () => sendForm(`${api.baseUrl}/v2/core/assets`, form, await api.accessToken(), options);
  let result = await send();
  if (result.status === 401) result = await send();
  if (result.status >= 200 && result.status < 300) return (JSON.parse(result.body) as { asset: Asset }).asset;
  throw await ApiError.fromResponse(new Response(result.body, { status: result.status }));
}

function sendForm(url: string, form: FormData, token: string, options: UploadOptions) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', url);
    request.setRequestHeader('Authorization', `Bearer ${token}`);
    request.setRequestHeader('Accept', 'application/json');
    request.setRequestHeader('Idempotency-Key', options.idempotencyKey);
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) options.onProgress(event.loaded, event.total);
    };
    request.onload = () => resolve({ status: request.status, body: request.responseText });
    request.onerror = () => reject(new TypeError('The upload could not reach the platform.'));
    request.ontimeout = () => reject(new TypeError('The upload timed out.'));
    request.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    if (options.signal.aborted) return reject(new DOMException('The upload was cancelled.', 'AbortError'));
    options.signal.addEventListener('abort', () => request.abort(), { once: true });
    request.send(form);
  });
}

export interface AccreditationForReview {
  id: number;
  name: string;
  status: 'pending' | 'approved' | 'rejected';
  review_note: string | null;
  owner: { id: number; name: string; email: string };
  assets: Asset[];
}

/** Admins: the pending accreditations with their documents, private ones included (decisions.md). */
export async function fetchReviewQueue(api: ApiClient): Promise<AccreditationForReview[]> {
  const body = await api.request<{ accreditations: AccreditationForReview[] }>(
    '/v2/core/accreditations?status=pending',
  );
  return body.accreditations;
}

export async function reviewAccreditation(
  api: ApiClient,
  id: number,
  decision: { status: 'approved' | 'rejected'; note: string },
): Promise<void> {
  await api.request(`/v2/core/accreditations/${id}`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      accreditation: decision.note
        ? { status: decision.status, note: decision.note }
        : { status: decision.status },
    }),
  });
}
