import { Upload, type HttpRequest, type HttpResponse } from 'tus-js-client';
import { resumableUploadsPath } from '../../shared/api/resumable-uploads';
import { bearer } from './platform-server';

export interface TusResult {
  /** The final answer's body: `{"asset": …}`. */
  body: unknown;
  status: number;
  uploadUrl: string;
}

export interface TusOptions {
  /** Called with each request before it goes (tests count PATCH bytes here). */
  onBeforeRequest?: (req: HttpRequest) => void;
  onAfterResponse?: (req: HttpRequest, res: HttpResponse) => void;
  onProgress?: (sent: number, total: number) => void;
  retryDelays?: number[];
  chunkSize?: number;
  /** Continue this upload instead of creating one. */
  uploadUrl?: string;
}

/** Base64 metadata as tus-js-client sends it; values as the form fields of POST /v2/core/assets. */
export type TusMetadata = Record<string, string>;

/** The `Upload-Metadata` header of `metadata`, for tests that speak tus by hand: `key base64,…`. */
export const uploadMetadataHeader = (metadata: TusMetadata): string =>
  Object.entries(metadata)
    .map(([key, value]) => `${key} ${Buffer.from(value).toString('base64')}`)
    .join(',');

/**
 * Uploads `bytes` with tus-js-client in Node, as the web app does in the browser; resolves with the
 * final answer (status and body), rejects with tus-js-client's error.
 */
export function tusUpload(
  baseUrl: string,
  token: string,
  bytes: Buffer,
  metadata: TusMetadata,
  options: TusOptions = {},
): { done: Promise<TusResult>; upload: Upload } {
  let resolve!: (result: TusResult) => void;
  let reject!: (error: Error) => void;
  const done = new Promise<TusResult>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  const upload = new Upload(bytes, {
    endpoint: `${baseUrl}${resumableUploadsPath}`,
    // tus-js-client takes an option given as undefined as meant (chunkSize undefined sends nothing).
    ...(options.uploadUrl ? { uploadUrl: options.uploadUrl } : {}),
    ...(options.chunkSize ? { chunkSize: options.chunkSize } : {}),
    headers: { Authorization: `Bearer ${token}` },
    metadata,
    retryDelays: options.retryDelays ?? [],
    storeFingerprintForResuming: false,
    onBeforeRequest: options.onBeforeRequest,
    onAfterResponse: options.onAfterResponse,
    onProgress: options.onProgress,
    onSuccess: ({ lastResponse }) => {
      const text = lastResponse.getBody();
      resolve({
        status: lastResponse.getStatus(),
        body: text ? (JSON.parse(text) as unknown) : undefined,
        uploadUrl: upload.url!,
      });
    },
    onError: reject,
  });
  upload.start();
  return { done, upload };
}

/**
 * The tests' S3 server (s3rver) has no ListParts, which @tus/s3-store reads every upload's offset
 * with: on the scale-out backends the tus tests keep their bytes on disk (still on PostgreSQL and
 * with the Redis locker). The S3 path is tested on Ceph's gateway (resumable-s3.test.ts).
 */
export const tusTestEnv = (): Record<string, string> =>
  process.env.TEST_BLOB_STORE === 's3' ? { BLOB_STORE: 'fs' } : {};

/**
 * Uploads `bytes` with tus-js-client and restarts the platform (`restart`: kill it and start it
 * again) once `at` of them are sent; the client keeps trying meanwhile, as the app's does. Resolves
 * with the final answer and the `Upload-Offset` of every PATCH, in order, once the restart is over.
 */
export async function tusUploadAcrossRestart(
  baseUrl: string,
  token: string,
  bytes: Buffer,
  metadata: TusMetadata,
  { at, chunkSize, restart }: { at: number; chunkSize: number; restart: () => Promise<unknown> },
): Promise<TusResult & { offsets: number[] }> {
  const offsets: number[] = [];
  let restarted: Promise<unknown> | undefined;
  const { done } = tusUpload(baseUrl, token, bytes, metadata, {
    chunkSize,
    // The restart takes seconds on a busy machine.
    retryDelays: [200, 500, 1000, 2000, 3000, 5000, 5000, 10_000, 10_000, 20_000],
    onBeforeRequest: (request) => {
      if (request.getMethod() === 'PATCH') offsets.push(Number(request.getHeader('Upload-Offset')));
    },
    onProgress: (sent, total) => {
      if (!restarted && sent >= total * at) restarted = restart();
    },
  });
  const result = await done;
  await restarted;
  return { ...result, offsets };
}

/**
 * Asks for an unfinished upload (HEAD) until it answers 404 and `traces` finds nothing of it, for
 * 30 s at most (the sweep runs every tenth of the expiry; a busy machine may take longer). Resolves
 * with the last answer's status and what was left.
 */
export async function untilSwept(uploadUrl: string, token: string, traces: () => Promise<string[]>) {
  const deadline = Date.now() + 30_000;
  let status = 0;
  let left: string[] = [];
  while (Date.now() < deadline) {
    status = (
      await fetch(uploadUrl, { method: 'HEAD', headers: { ...bearer(token), 'tus-resumable': '1.0.0' } })
    ).status;
    left = await traces();
    if (status === 404 && left.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { status, left };
}
