import {
  defaultOptions,
  Upload,
  type DetailedError,
  type HttpResponse,
  type HttpStack,
  type UploadOptions as TusOptions,
} from 'tus-js-client';
import {
  resumableUploadsPath,
  tusVersion,
  uploadMetadataKeys as keys,
} from '../../../shared/api/resumable-uploads';
import type { UnfinishedUploadStore } from '../unfinished-uploads';
import { ApiError, SessionEnded } from './errors';
import type { PlatformHttp } from './http';
import {
  pauseReason,
  type EntityRef,
  type NewFile,
  type UnfinishedUpload,
  type UploadOptions,
} from './model';
import type { UploadAnswer } from './upload';

/**
 * How long a resumable upload waits before each new try after losing its connection (or a platform
 * restarting): at once, then longer and longer, about two minutes in all. Then it fails with Retry,
 * which still continues from the last byte the platform holds.
 */
export const retryDelays = [0, 1_000, 3_000, 5_000, 10_000, 20_000, 30_000, 60_000];

/** Statuses after which the same request can succeed: busy, locked by another try, or briefly away. */
const passingStatuses = new Set([408, 409, 423, 429]);

/** What `POST /v2/core/assets` would take, as `Upload-Metadata` (src/shared/api/resumable-uploads.ts). */
export function uploadMetadata(newFile: NewFile): Record<string, string> {
  return {
    [keys.fileType]: newFile.fileType,
    [keys.assetableType]: newFile.entity.type,
    [keys.assetableId]: String(newFile.entity.id),
    [keys.name]: newFile.file.name,
    [keys.meta]: JSON.stringify(newFile.meta),
    [keys.private]: String(newFile.private),
    // Checked before any byte (415); a browser that does not know the type sends none, and the bytes decide.
    ...(newFile.file.type ? { [keys.contentType]: newFile.file.type } : {}),
  };
}

/**
 * The same file for the same slot, whatever its crop: tus-js-client finds an earlier upload by this.
 * The slot belongs in it, so that choosing one file for two slots never continues the other's upload.
 */
async function fingerprint(file: File | Blob, options: TusOptions): Promise<string> {
  const named = file as Partial<File>;
  const metadata = options.metadata ?? {};
  return JSON.stringify([
    'asset-manager/1',
    options.endpoint,
    metadata[keys.assetableType],
    metadata[keys.assetableId],
    metadata[keys.fileType],
    named.name,
    file.type,
    file.size,
    named.lastModified,
  ]);
}

const sameMetadata = (a: Record<string, string>, b: Record<string, string>) =>
  Object.keys(a).length === Object.keys(b).length &&
  Object.entries(a).every(([key, value]) => b[key] === value);

/**
 * Every request of an upload goes through `http.url`, as the app's other calls do: to the platform or
 * the proxy before it, never to another address a `Location` might name (the token goes with it).
 */
function platformOnly(inner: HttpStack, http: PlatformHttp): HttpStack {
  return {
    createRequest: (method, url) => inner.createRequest(method, http.url(url)),
    getName: () => `platform-only ${inner.getName()}`,
  };
}

/** The final answer carries the asset (`{"asset": …}`), unless it was lost or the upload was already complete. */
function carriesAsset(body: string): boolean {
  try {
    const parsed = JSON.parse(body) as unknown;
    return typeof parsed === 'object' && parsed !== null && ('asset' in parsed || 'id' in parsed);
  } catch {
    return false;
  }
}

/**
 * tus 1.0 through tus-js-client (this module and the library load only where they are used:
 * new-files.ts imports them lazily): creation with the metadata
 * (checked before any byte), then PATCHes from the offset the platform holds. A lost connection tries
 * again by itself after `retryDelays`, asking the platform (HEAD) where to continue; a pause (an abort
 * with `pauseReason`) leaves the upload at the platform, and the same file chosen again for the same
 * slot continues it, after a reload too (`store`). The answer is the asset, as `POST` gives it.
 */
export async function sendResumable(
  http: PlatformHttp,
  newFile: NewFile,
  options: UploadOptions,
  store: UnfinishedUploadStore,
): Promise<UploadAnswer> {
  const metadata = uploadMetadata(newFile);
  // A 401 renews the session once, as every other call does; the request is then tried again.
  let renewNext = false;
  let renewed = false;

  const upload = new Upload(newFile.file, {
    endpoint: http.url(resumableUploadsPath),
    metadata,
    fingerprint,
    urlStorage: store,
    httpStack: platformOnly(defaultOptions.httpStack, http),
    storeFingerprintForResuming: true,
    removeFingerprintOnSuccess: true,
    retryDelays,
    onBeforeRequest: async (request) => {
      const token = renewNext ? await http.renewedToken() : await http.accessToken();
      renewed ||= renewNext;
      renewNext = false;
      request.setHeader('Authorization', `Bearer ${token}`);
      request.setHeader('Accept', 'application/json');
    },
    onAfterResponse: (_request, response) => {
      if (response.getStatus() !== 401) renewed = false;
    },
    onShouldRetry: (error) => {
      if (error.causingError instanceof SessionEnded) return false;
      const status = error.originalResponse?.getStatus() ?? 0;
      if (status === 401) {
        renewNext = !renewed;
        return renewNext;
      }
      // Offline, trying again only wears the battery: the row waits for the browser's `online` instead.
      if (status === 0 && navigator.onLine === false) return false;
      const passing = status === 0 || status >= 500 || passingStatuses.has(status);
      if (passing) options.onReconnecting?.();
      return passing;
    },
    onProgress: (sent, total) => options.onProgress(sent, total),
    onUploadUrlAvailable: () => {
      if (upload.url) options.onResumable?.(upload.url);
    },
  });

  // The same file for the same slot: continue where it stopped, if it is still meant to be the same
  // file (a new crop is another upload; the old one is given up).
  const previous = await upload.findPreviousUploads();
  const same = previous.find((p) => p.size === newFile.file.size && sameMetadata(p.metadata, metadata));
  for (const other of previous) if (other !== same) void discard(http, store, other.urlStorageKey);
  if (same) upload.resumeFromPreviousUpload(same);

  return new Promise<UploadAnswer>((resolve, reject) => {
    const stopped = () => {
      const pausing = options.signal.reason === pauseReason;
      // A pause keeps the bytes at the platform; a cancel gives them up (tus termination).
      upload.abort(!pausing).catch(() => undefined);
      reject(new DOMException(`The upload was ${pausing ? 'paused' : 'cancelled'}.`, 'AbortError'));
    };
    if (options.signal.aborted) return stopped();
    options.signal.addEventListener('abort', stopped, { once: true });
    const settle = (answer: Promise<UploadAnswer>) => {
      options.signal.removeEventListener('abort', stopped);
      answer.then(resolve, reject);
    };
    upload.options.onSuccess = ({ lastResponse }) => settle(finalAnswer(http, lastResponse, upload.url));
    upload.options.onError = (error) => settle(failure(http, error, renewed).then((e) => Promise.reject(e)));
    upload.start();
  });
}

/** The asset from the final PATCH, or, when that answer is lost or had none, from `GET` on the upload. */
async function finalAnswer(
  http: PlatformHttp,
  last: HttpResponse,
  uploadUrl: string | null,
): Promise<UploadAnswer> {
  const body = last.getBody() ?? '';
  if (carriesAsset(body)) return { status: 200, body, etag: last.getHeader('ETag') ?? undefined };
  if (!uploadUrl) throw new Error('The file was sent, but the platform gave no address to read it at.');
  const response = await http.send(uploadUrl, { headers: { Accept: 'application/json' } });
  return {
    status: response.status,
    body: await response.text(),
    etag: response.headers.get('ETag') ?? undefined,
  };
}

/** What failed, as the app's other calls say it: the platform's problem JSON, an ended session, no answer. */
async function failure(http: PlatformHttp, error: Error, renewed: boolean): Promise<Error> {
  const detailed = error as Partial<DetailedError>;
  if (detailed.causingError instanceof SessionEnded) return detailed.causingError;
  const response = detailed.originalResponse;
  const status = response?.getStatus() ?? 0;
  if (!response || status < 200) {
    return detailed.originalRequest ? new TypeError('The upload could not reach the platform.') : error;
  }
  if (status === 401 && renewed) {
    try {
      http.endSession();
    } catch (ended) {
      return ended as Error;
    }
  }
  const body = response.getBody() || null;
  return ApiError.fromResponse(new Response(body, { status }));
}

/** This browser's unfinished uploads of one slot, with how much of each the platform holds. */
export async function unfinishedUploads(
  http: PlatformHttp,
  store: UnfinishedUploadStore,
  entity: EntityRef,
  fileType: string,
): Promise<UnfinishedUpload[]> {
  const mine = (await store.findAllUploads()).filter(
    (p) =>
      p.uploadUrl &&
      p.metadata[keys.assetableType] === entity.type &&
      p.metadata[keys.assetableId] === String(entity.id) &&
      p.metadata[keys.fileType] === fileType,
  );
  const checked = await Promise.all(
    mine.map(async (p) => {
      const sent = await arrived(http, p.urlStorageKey);
      // Expired, swept, or not this person's: nothing to continue.
      if (sent === 'gone') {
        await store.removeUpload(p.urlStorageKey);
        return undefined;
      }
      return {
        id: p.urlStorageKey,
        name: p.metadata[keys.name] ?? p.metadata[keys.filenameAlias] ?? 'A file',
        size: p.size ?? 0,
        sent,
        startedAt: new Date(p.creationTime),
      };
    }),
  );
  return checked.filter((u): u is UnfinishedUpload => u !== undefined);
}

/** How many bytes of an upload the platform holds (tus HEAD); 'gone' when it has none to continue. */
async function arrived(http: PlatformHttp, uploadUrl: string): Promise<number | null | 'gone'> {
  const response = await http
    .send(uploadUrl, { method: 'HEAD', headers: { 'Tus-Resumable': tusVersion }, cache: 'no-store' })
    .catch(() => null);
  if (!response) return null;
  if ([403, 404, 410].includes(response.status)) return 'gone';
  const offset = Number.parseInt(response.headers.get('Upload-Offset') ?? '', 10);
  return response.ok && Number.isFinite(offset) ? offset : null;
}

/**
 * Gives an unfinished upload up: forgotten here at once, and the platform asked to delete what it
 * holds (tus termination). If it cannot be reached, it sweeps the upload after its expiry anyway.
 */
export async function discard(http: PlatformHttp, store: UnfinishedUploadStore, id: string): Promise<void> {
  await store.removeUpload(id);
  await http
    .send(id, { method: 'DELETE', headers: { 'Tus-Resumable': tusVersion } })
    .then((response) => response.body?.cancel())
    .catch(() => undefined);
}
