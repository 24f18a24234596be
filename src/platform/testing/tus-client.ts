import { Upload, type HttpRequest, type HttpResponse } from 'tus-js-client';
import { resumableUploadsPath } from '../../shared/api/resumable-uploads';

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
