import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { checkStorageEnv, storageConfig, storageEnvFields } from './storage-env';

const port = z.coerce.number().int().min(0).max(65535);
const seconds = z.coerce.number().int().positive();
const milliseconds = z.coerce.number().int().positive();
const url = z.url({ protocol: /^https?$/ }).transform((u) => u.replace(/\/+$/, ''));
const flag = z.enum(['0', '1', 'true', 'false']).transform((v) => v === '1' || v === 'true');
const redisUrl = z.url({ protocol: /^rediss?$/, message: 'must be a redis:// or rediss:// URL' });
/** base64url of at least 32 random bytes (`openssl rand -base64 32 | tr '+/' '-_' | tr -d '='`). */
const signingKey = z
  .string()
  .regex(/^[A-Za-z0-9_-]+$/, 'must be base64url (A-Z, a-z, 0-9, - and _, no padding)')
  .transform((value) => Buffer.from(value, 'base64url'))
  .refine((key) => key.length >= 32, 'must decode to at least 32 bytes');

const envSchema = z
  .object({
    DATA_DIR: z.string().min(1).default('./data'),
    /**
     * PostgreSQL instead of the SQLite file in DATA_DIR: `postgres://user:password@host:5432/db`
     * (libpq's URL; `?options=-c search_path=…` picks a schema). Unset: SQLite, nothing to install.
     */
    DATABASE_URL: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL (unset for the embedded SQLite)')
      .optional(),
    /** Connections each platform process keeps to PostgreSQL. */
    DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
    /** How long opening one connection to PostgreSQL may take before the request gives up (503). */
    DATABASE_CONNECT_TIMEOUT_MS: milliseconds.default(5_000),
    /**
     * How long one statement may run: PostgreSQL cancels it past this, and a database that stops
     * answering altogether (a partition) is given up on a second later. The request answers 503.
     */
    DATABASE_STATEMENT_TIMEOUT_MS: milliseconds.default(10_000),
    /** How long a start keeps trying to reach PostgreSQL (with backoff) before it gives up. */
    DATABASE_START_TIMEOUT_MS: milliseconds.default(60_000),
    PLATFORM_HOST: z.string().min(1).default('127.0.0.1'),
    PLATFORM_PORT: port.default(4000),
    PLATFORM_PUBLIC_URL: url.optional(),
    /**
     * Reverse proxies (nginx) whose X-Forwarded-For, -Proto and -Host the platform believes:
     * addresses or CIDR ranges, comma-separated. Unset: none, so that a client cannot name its own
     * address (rate limits and sign-in throttling are per address).
     */
    TRUST_PROXY: z.string().min(1).optional(),
    DEMO_SEED: flag.default(false),
    DEMO_PASSWORD: z.string().min(8).default('demo-password'),
    WEB_PUBLIC_URL: url.default('http://127.0.0.1:5173'),
    WEB_ORIGINS: z.string().optional(),
    ACCESS_TOKEN_TTL: seconds.default(3600),
    REFRESH_TOKEN_TTL: seconds.default(1_209_600),
    DOWNLOAD_URL_TTL: seconds.default(300),
    MAX_UPLOAD_BYTES: z.coerce.number().int().positive().default(104_857_600),
    /**
     * Slow clients (H8). The defaults leave room for a phone on 3G (~50 KB/s): 100 MB take it about
     * 35 minutes, and it would have to stall for most of a minute to fall under the minimum rate.
     */
    HEADERS_TIMEOUT_MS: milliseconds.default(30_000),
    REQUEST_TIMEOUT_MS: milliseconds.default(3_600_000),
    IDLE_TIMEOUT_MS: milliseconds.default(120_000),
    KEEP_ALIVE_TIMEOUT_MS: milliseconds.default(72_000),
    UPLOAD_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(0).default(1024),
    UPLOAD_RATE_WINDOW_MS: milliseconds.default(60_000),
    UPLOADS_PER_USER: z.coerce.number().int().positive().default(10),
    /**
     * How long a resumable (tus) upload may stay unfinished before it is swept, bytes and row
     * (issue 32): a day, for a phone that comes back to a hotel's Wi-Fi in the evening.
     */
    RESUMABLE_UPLOAD_EXPIRY_MS: milliseconds.default(86_400_000),
    /** Requests per minute and address on the API; the benchmark raises it. */
    API_RATE_LIMIT: z.coerce.number().int().positive().default(1200),
    TOKEN_RATE_LIMIT: z.coerce.number().int().positive().default(120),
    /**
     * After SIGTERM, how long requests in flight (uploads and downloads included) may take to finish
     * before their connections are cut; no new connection is taken meanwhile.
     */
    SHUTDOWN_GRACE_MS: milliseconds.default(30_000),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /**
     * Prometheus metrics at /metrics on this port, never on the API's (docs/deploy.md, "Metrics").
     * Unset: no metrics, nothing listens.
     */
    METRICS_PORT: port.optional(),
    /** Where the metrics port listens; default PLATFORM_HOST. */
    METRICS_HOST: z.string().min(1).optional(),
    /** Processes rendering PDF thumbnails; 0 turns thumbnails off. Default: min(2, cores). */
    PDF_THUMBNAIL_WORKERS: z.coerce.number().int().min(0).max(16).optional(),
    /**
     * Memory of one PDF render process, all of it (about 100 MB at rest); past it the render is
     * ended and its PDF gets no thumbnail (a page that inflates to hundreds of MB).
     */
    PDF_RENDER_MAX_RSS_MB: z.coerce.number().int().min(128).default(512),
    /**
     * Memory of all the render processes together; past it while two renders or more run, the
     * largest is ended (its PDF gets no thumbnail). Default PDF_RENDER_MAX_RSS_MB + 128.
     */
    PDF_RENDER_POOL_MAX_RSS_MB: z.coerce.number().int().min(128).optional(),
    /** CPU time of one PDF render (Linux; elsewhere wall time); past it the PDF gets no thumbnail. */
    PDF_THUMBNAIL_TIMEOUT_MS: z.coerce.number().int().positive().default(10_000),
    /**
     * PDFs over 50 MB get no thumbnail. pdf.js reads only the ranges page 1 needs, but a damaged
     * cross-reference table makes it scan the whole file.
     */
    PDF_THUMBNAIL_MAX_BYTES: z.coerce.number().int().positive().default(52_428_800),
    /**
     * Renders at the lowest CPU priority, so that requests win over them; on a machine kept busy by
     * other work they then wait, and past their time limit go without. 0: renders compete as equals.
     */
    PDF_THUMBNAIL_LOW_PRIORITY: flag.default(true),
    /**
     * Several instances: rate limits, sign-in throttling, the upload cap and token revocations are
     * shared through this Redis (src/platform/shared-state). Unset: each process keeps them in memory.
     */
    REDIS_URL: redisUrl.optional(),
    /** Put before every key and channel, so that several platforms (or tests) can share one Redis. */
    REDIS_KEY_PREFIX: z.string().min(1).max(100).default('am:'),
    /** The key of CSRF tokens, download URLs and device cookies; unset: DATA_DIR/secrets.json. */
    SIGNING_KEY: signingKey.optional(),
    ...storageEnvFields,
  })
  .refine((env) => env.HEADERS_TIMEOUT_MS <= env.REQUEST_TIMEOUT_MS, {
    path: ['HEADERS_TIMEOUT_MS'],
    message: 'must not be longer than REQUEST_TIMEOUT_MS',
  })
  .superRefine(checkStorageEnv)
  .transform((env) => {
    const publicUrl = env.PLATFORM_PUBLIC_URL ?? `http://${env.PLATFORM_HOST}:${env.PLATFORM_PORT}`;
    const webOrigins = (env.WEB_ORIGINS ?? new URL(env.WEB_PUBLIC_URL).origin)
      .split(',')
      .map((o) => o.trim())
      .filter(Boolean);
    return {
      dataDir: env.DATA_DIR,
      database: {
        url: env.DATABASE_URL,
        poolSize: env.DATABASE_POOL_SIZE,
        connectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_MS,
        statementTimeoutMs: env.DATABASE_STATEMENT_TIMEOUT_MS,
        startTimeoutMs: env.DATABASE_START_TIMEOUT_MS,
      },
      host: env.PLATFORM_HOST,
      port: env.PLATFORM_PORT,
      publicUrl,
      trustProxy:
        env.TRUST_PROXY?.split(',')
          .map((a) => a.trim())
          .filter(Boolean) ?? (false as const),
      demoSeed: env.DEMO_SEED,
      demoPassword: env.DEMO_PASSWORD,
      webPublicUrl: env.WEB_PUBLIC_URL,
      webOrigins,
      accessTokenTtl: env.ACCESS_TOKEN_TTL,
      refreshTokenTtl: env.REFRESH_TOKEN_TTL,
      downloadUrlTtl: env.DOWNLOAD_URL_TTL,
      maxUploadBytes: env.MAX_UPLOAD_BYTES,
      http: {
        headersTimeoutMs: env.HEADERS_TIMEOUT_MS,
        requestTimeoutMs: env.REQUEST_TIMEOUT_MS,
        idleTimeoutMs: env.IDLE_TIMEOUT_MS,
        keepAliveTimeoutMs: env.KEEP_ALIVE_TIMEOUT_MS,
      },
      uploads: {
        perUser: env.UPLOADS_PER_USER,
        minBytesPerSecond: env.UPLOAD_MIN_BYTES_PER_SECOND,
        rateWindowMs: env.UPLOAD_RATE_WINDOW_MS,
      },
      resumableUploadExpiryMs: env.RESUMABLE_UPLOAD_EXPIRY_MS,
      apiRateLimit: env.API_RATE_LIMIT,
      tokenRateLimit: env.TOKEN_RATE_LIMIT,
      logLevel: env.LOG_LEVEL,
      shutdownGraceMs: env.SHUTDOWN_GRACE_MS,
      metrics:
        env.METRICS_PORT === undefined
          ? undefined
          : { host: env.METRICS_HOST ?? env.PLATFORM_HOST, port: env.METRICS_PORT },
      redis: env.REDIS_URL ? { url: env.REDIS_URL, keyPrefix: env.REDIS_KEY_PREFIX } : undefined,
      signingKey: env.SIGNING_KEY,
      pdfThumbnails: {
        workers: env.PDF_THUMBNAIL_WORKERS ?? Math.min(2, availableParallelism()),
        timeoutMs: env.PDF_THUMBNAIL_TIMEOUT_MS,
        maxBytes: env.PDF_THUMBNAIL_MAX_BYTES,
        lowPriority: env.PDF_THUMBNAIL_LOW_PRIORITY,
        maxRssMb: env.PDF_RENDER_MAX_RSS_MB,
        poolMaxRssMb: env.PDF_RENDER_POOL_MAX_RSS_MB ?? env.PDF_RENDER_MAX_RSS_MB + 128,
      },
      blobStore: storageConfig(env),
    };
  });

export type PlatformConfig = z.output<typeof envSchema>;

/** Reads the platform's configuration; a bad value stops the start with the list of bad variables. */
export function loadConfig(source: NodeJS.ProcessEnv = process.env): PlatformConfig {
  const parsed = envSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.') || '(env)'}: ${i.message}`);
    throw new Error(`Invalid platform configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/**
 * What a server needs beyond valid variables. Several instances (on PostgreSQL, or sharing Redis)
 * must sign forms, download URLs and device cookies with one key: each generating its own would
 * refuse the others' (decided in issue 29). Admin commands sign nothing, and do without.
 */
export function checkServerConfig(config: PlatformConfig) {
  if (config.signingKey || (!config.database.url && !config.redis)) return;
  throw new Error(
    'Invalid platform configuration:\n  SIGNING_KEY: required when DATABASE_URL or REDIS_URL is set ' +
      '(every instance must use the same one); make one with ' +
      `node -e "console.log(require('crypto').randomBytes(32).toString('base64url'))"`,
  );
}

/** Configuration for tests and tools: defaults plus overrides, without reading process.env. */
export function configFor(overrides: Record<string, string>): PlatformConfig {
  return loadConfig(overrides);
}
