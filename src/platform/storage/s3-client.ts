import {
  GetObjectCommand,
  ListObjectsV2Command,
  type ListObjectsV2CommandOutput,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { PresignedHeaders } from './blob-store';
import type { S3Config } from '../config/storage-env';

/**
 * Checksums only where S3 requires them. Since early 2025 the SDK adds a CRC32 to every upload and
 * sends a body of unknown length (a stream: each PATCH of a resumable upload, in @tus/s3-store) as
 * `aws-chunked` with the checksum at its end, which S3-compatible servers older than that refuse:
 * Ceph's gateway answers 411 MissingContentLength, and the PATCH failed (resumable-s3.test.ts).
 * AWS takes both; the SHA-256 the platform keeps of every file is its own check.
 */
export const s3Checksums = {
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
} as const satisfies Pick<S3ClientConfig, 'requestChecksumCalculation' | 'responseChecksumValidation'>;

/**
 * Sockets to the bucket per platform process. Each download streamed from the bucket holds one
 * for as long as its client takes to read it; the SDK's default of 50 would queue the 51st
 * download behind the slowest ones.
 */
const maxSockets = 512;

/**
 * One client per process: it keeps the connections to the bucket alive between requests.
 *
 * A bucket that does not answer never holds a request longer than `requestTimeoutMs`: not to
 * connect, not to answer (`requestTimeout`, an error rather than the SDK's warning), not in the
 * middle of a body (`socketTimeout`, the time the connection may stay silent). The request then
 * fails with a TimeoutError (a 503 with Retry-After: backend-outages.ts), and is not retried.
 */
export function createS3Client(config: S3Config): S3Client {
  const agent = { keepAlive: true, maxSockets };
  const timeout = config.requestTimeoutMs;
  return new S3Client({
    region: config.region,
    endpoint: config.endpoint,
    forcePathStyle: config.forcePathStyle,
    credentials: config.credentials,
    ...s3Checksums,
    requestHandler: {
      connectionTimeout: Math.min(10_000, timeout),
      requestTimeout: timeout,
      throwOnRequestTimeout: true,
      socketTimeout: timeout,
      httpAgent: agent,
      httpsAgent: agent,
    },
    retryStrategy: retriesWithinTimeout,
  });
}

type RetryStrategy = Extract<NonNullable<S3ClientConfig['retryStrategy']>, { recordSuccess: unknown }>;
type RetryToken = Awaited<ReturnType<RetryStrategy['acquireInitialRetryToken']>>;

/** Attempts of one request, as the SDK's default; only failures that came quickly are tried again. */
const maxAttempts = 3;
const retryToken = (count: number): RetryToken => ({
  getRetryCount: () => count,
  // 100 ms, then 200 ms, with jitter, as the SDK's own backoff.
  getRetryDelay: () => (count === 0 ? 0 : Math.random() * 100 * 2 ** count),
});

/**
 * The SDK's retries, except after a timeout: three attempts would make a silent bucket hold the
 * request three times as long. A refused or reset connection and the bucket's own 5xx (S3's
 * SlowDown) are tried again, as the SDK does; a client error (403, 404) is not.
 */
const retriesWithinTimeout: RetryStrategy = {
  acquireInitialRetryToken: async () => retryToken(0),
  refreshRetryTokenForRetry: async (token, info) => {
    const next = token.getRetryCount() + 1;
    if (next >= maxAttempts || info.errorType === 'CLIENT_ERROR' || info.error?.name === 'TimeoutError')
      throw info.error ?? new Error('S3 request failed');
    return retryToken(next);
  },
  recordSuccess: () => {},
};

const nameOf = (error: unknown) => (error as { name?: unknown } | null)?.name;
const statusOf = (error: unknown) =>
  (error as { $metadata?: { httpStatusCode?: number } } | null)?.$metadata?.httpStatusCode;

/** GetObject's and HeadObject's "no such key" (HeadObject has no body, so only its status says so). */
export const isMissingObject = (error: unknown) =>
  nameOf(error) === 'NoSuchKey' || (nameOf(error) === 'NotFound' && statusOf(error) === 404);

/** A range that starts past the end of the object. */
export const isUnsatisfiableRange = (error: unknown) =>
  nameOf(error) === 'InvalidRange' || statusOf(error) === 416;

/** Every page of a listing (ListObjectsV2 answers at most 1 000 entries a page). */
export async function* listPages(
  client: S3Client,
  params: { Bucket: string; Prefix: string; Delimiter?: string },
): AsyncGenerator<ListObjectsV2CommandOutput> {
  let ContinuationToken: string | undefined;
  do {
    const page = await client.send(new ListObjectsV2Command({ ...params, ContinuationToken }));
    yield page;
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
}

/**
 * How long a presigned URL of the bucket works (S3_DELIVERY=redirect): enough for the client to
 * follow the redirect, and short, since the bucket cannot end it when the asset changes.
 */
export const presignedUrlSeconds = 60;

/** A GetObject URL of the bucket, answering with our delivery's headers. */
export function presignGet(client: S3Client, bucket: string, key: string, headers: PresignedHeaders) {
  return getSignedUrl(
    client,
    new GetObjectCommand({
      Bucket: bucket,
      Key: key,
      ResponseContentType: headers.contentType,
      ResponseContentDisposition: headers.contentDisposition,
      ResponseCacheControl: headers.cacheControl,
    }),
    { expiresIn: presignedUrlSeconds },
  );
}
