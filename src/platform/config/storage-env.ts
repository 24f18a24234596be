import { z } from 'zod';

/**
 * The variables that choose where files live (env.ts spreads them into its schema). The embedded
 * default is the local disk under DATA_DIR; `BLOB_STORE=s3` puts originals, thumbnails and
 * renditions in one bucket of any S3-compatible service (AWS, MinIO, R2, Ceph).
 */
export const storageEnvFields = {
  BLOB_STORE: z.enum(['fs', 's3']).default('fs'),
  /** Omitted for AWS itself; the service's URL otherwise (MinIO, R2, Ceph). */
  S3_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  S3_REGION: z.string().min(1).optional(),
  S3_BUCKET: z.string().min(1).optional(),
  /** Both or neither: without them the SDK's own chain (AWS_* variables, instance role) is used. */
  S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** `bucket` in the path rather than the host name: MinIO and most self-hosted services want it. */
  S3_FORCE_PATH_STYLE: z
    .enum(['0', '1', 'true', 'false'])
    .default('false')
    .transform((v) => v === '1' || v === 'true'),
  /** stream: the platform sends the bytes; redirect: a 302 to a presigned URL of the bucket. */
  S3_DELIVERY: z.enum(['stream', 'redirect']).default('stream'),
  /**
   * How long the bucket may take to answer a request, and may stay silent in the middle of one
   * (a download's body); past it the request fails (503 with Retry-After) and is not retried.
   */
  S3_REQUEST_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
};

type StorageEnv = z.output<z.ZodObject<typeof storageEnvFields>>;

/** What `BLOB_STORE=s3` cannot start without, each missing variable named (refuses to boot). */
export function checkStorageEnv(env: StorageEnv, ctx: z.RefinementCtx) {
  if (env.BLOB_STORE !== 's3') return;
  for (const name of ['S3_BUCKET', 'S3_REGION'] as const) {
    if (env[name] === undefined)
      ctx.addIssue({ code: 'custom', path: [name], message: 'required when BLOB_STORE=s3' });
  }
  if ((env.S3_ACCESS_KEY_ID === undefined) !== (env.S3_SECRET_ACCESS_KEY === undefined)) {
    const missing = env.S3_ACCESS_KEY_ID === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY';
    ctx.addIssue({
      code: 'custom',
      path: [missing],
      message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or neither, for the SDK’s own chain)',
    });
  }
}

export interface S3Config {
  kind: 's3';
  endpoint: string | undefined;
  region: string;
  bucket: string;
  credentials: { accessKeyId: string; secretAccessKey: string } | undefined;
  forcePathStyle: boolean;
  delivery: 'stream' | 'redirect';
  requestTimeoutMs: number;
}

export type BlobStoreConfig = { kind: 'fs' } | S3Config;

export function storageConfig(env: StorageEnv): BlobStoreConfig {
  if (env.BLOB_STORE === 'fs') return { kind: 'fs' };
  return {
    kind: 's3',
    endpoint: env.S3_ENDPOINT,
    // checkStorageEnv made sure of both.
    region: env.S3_REGION!,
    bucket: env.S3_BUCKET!,
    credentials:
      env.S3_ACCESS_KEY_ID && env.S3_SECRET_ACCESS_KEY
        ? { accessKeyId: env.S3_ACCESS_KEY_ID, secretAccessKey: env.S3_SECRET_ACCESS_KEY }
        : undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE,
    delivery: env.S3_DELIVERY,
    requestTimeoutMs: env.S3_REQUEST_TIMEOUT_MS,
  };
}
