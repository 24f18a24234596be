/**
 * The tests' S3 server, run as a child process by testing/s3.ts (and `npm run cluster`): `node
 * --openssl-legacy-provider --import tsx src/platform/testing/s3rver-process.ts <directory> [port]`
 * (port 0 or none: any free one); prints `{"port":…}` once listening.
 *
 * Why s3rver: it is the one S3-compatible server that installs from the npm registry and keeps real
 * bytes on a real disk behind real HTTP with SigV4 checking (no Docker here for MinIO; moto is
 * Python). Its gaps are covered here, in the test set-up, never in the product's S3 code:
 * - ListObjectsV2 answers 500 past 1 000 objects because its continuation tokens use DES, which
 *   OpenSSL 3 refuses: the process runs with `--openssl-legacy-provider`.
 * - It lacks AbortMultipartUpload and ListMultipartUploads, which the product uses (lib-storage aborts
 *   a failed upload; the sweep aborts the unfinished uploads of a killed instance). Both are added
 *   below over s3rver's own record of unfinished uploads (a folder per upload holding its key and
 *   parts, removed when the upload completes), answering in S3's documented shape.
 * - It reads `Range: bytes=0-0` (the first byte alone) as the whole object (`end || Infinity`):
 *   its store's getObject is wrapped below to read one byte then.
 * - With a Delimiter it does not look below the first level under the prefix, so the common
 *   prefix of deeper keys goes missing (`renditions/v0/` of `renditions/v0/<key>/<name>.webp`): its
 *   store's listObjects is wrapped below to group all keys under the prefix itself (in one page).
 * - It stores a streamed PutObject of current SDKs in its `aws-chunked` framing verbatim. The
 *   product never streams a PutObject of unknown length (lib-storage sends sized parts, renditions
 *   are buffers), so nothing needs to be turned off for it; a test writing objects of its own sends
 *   buffers too.
 * - It closes a kept-alive connection after 5 s idle (Node's default), where S3 keeps one longer:
 *   on a busy machine the platform's S3 client then sends a request on a connection that is being
 *   closed and reads ECONNRESET (a create answered 503 in the rolling-restart test, its log said
 *   `the blob store is unavailable: read ECONNRESET`). Its server keeps idle connections 2 minutes.
 */
import { createReadStream } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';

interface KoaContext {
  method: string;
  path: string;
  query: Record<string, string | undefined>;
  req: IncomingMessage;
  res: ServerResponse;
  status: number;
  type: string;
  body: unknown;
}
type Middleware = (ctx: KoaContext, next: () => Promise<void>) => Promise<void>;
interface StoredObject {
  content: Readable | null;
  range?: { start: number; end: number };
}
interface ListOptions {
  delimiter?: string;
  prefix?: string;
  maxKeys?: number;
  startAfter?: string;
}
interface Listing {
  objects: { key: string }[];
  commonPrefixes: string[];
  isTruncated: boolean;
}
interface S3rverStore {
  listObjects(bucket: string, options: ListOptions): Promise<Listing>;
  getObject(
    bucket: string,
    key: string,
    options?: { start?: number; end?: number },
  ): Promise<StoredObject | null>;
  getResourcePath(bucket: string, key: string, resource: string): string;
}
interface S3rverInstance {
  middleware: Middleware[];
  store: S3rverStore;
  run(): Promise<{ port: number }>;
  httpServer: import('node:http').Server;
}

const require = createRequire(import.meta.url);
const S3rver = require('s3rver') as new (options: Record<string, unknown>) => S3rverInstance;

const directory = process.argv[2];
if (!directory) throw new Error('usage: s3rver-process.ts <directory> [port]');
const port = Number(process.argv[3] ?? '0');

/** Where s3rver keeps a bucket's unfinished multipart uploads (stores/filesystem.js). */
const uploadsOf = (bucket: string) => join(directory, bucket, '._S3rver_uploads');

const escapeXml = (text: string) => text.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`);

function answer(ctx: KoaContext, status: number, xml: string) {
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n${xml}`;
}

async function unfinishedUploads(bucket: string) {
  const root = uploadsOf(bucket);
  const ids = await readdir(root).catch(() => [] as string[]);
  const uploads = await Promise.all(
    ids.map(async (id) => {
      const keyFile = join(root, id, 'key');
      try {
        const [key, info] = await Promise.all([readFile(keyFile, 'utf8'), stat(keyFile)]);
        return { id, key, initiated: info.mtime };
      } catch {
        // Completed or aborted while listing.
        return undefined;
      }
    }),
  );
  return uploads.filter((upload) => upload !== undefined);
}

const missingOperations: Middleware = async (ctx, next) => {
  const [, bucket, ...keyParts] = ctx.path.split('/').map(decodeURIComponent);
  const key = keyParts.join('/');
  if (bucket && ctx.method === 'GET' && !key && 'uploads' in ctx.query) {
    // ListMultipartUploads, in one page (the tests leave a handful at most).
    const prefix = ctx.query.prefix ?? '';
    const uploads = (await unfinishedUploads(bucket)).filter((u) => u.key.startsWith(prefix));
    const entries = uploads
      .map(
        (u) =>
          `<Upload><Key>${escapeXml(u.key)}</Key><UploadId>${u.id}</UploadId>` +
          `<Initiated>${u.initiated.toISOString()}</Initiated><StorageClass>STANDARD</StorageClass></Upload>`,
      )
      .join('');
    return answer(
      ctx,
      200,
      `<ListMultipartUploadsResult><Bucket>${escapeXml(bucket)}</Bucket><Prefix>${escapeXml(prefix)}</Prefix>` +
        `<MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>${entries}</ListMultipartUploadsResult>`,
    );
  }
  const uploadId = ctx.query.uploadId;
  if (bucket && key && ctx.method === 'DELETE' && uploadId !== undefined) {
    // AbortMultipartUpload: the upload's parts go; an unknown upload is NoSuchUpload.
    const folder = join(uploadsOf(bucket), uploadId);
    const known =
      /^[0-9a-f]+$/.test(uploadId) &&
      (await readFile(join(folder, 'key'), 'utf8').then(
        (k) => k === key,
        () => false,
      ));
    if (!known) {
      return answer(
        ctx,
        404,
        '<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message></Error>',
      );
    }
    await rm(folder, { recursive: true, force: true });
    ctx.status = 204;
    return;
  }
  await next();
};

const server = new S3rver({ directory, port, address: '127.0.0.1', silent: true, vhostBuckets: false });
const { store } = server;
const getObject = store.getObject.bind(store);
store.getObject = async (bucket, key, options) => {
  if (options?.end !== 0) return getObject(bucket, key, options);
  const object = await getObject(bucket, key, { start: options.start });
  if (!object?.content || options.start !== 0) return object;
  object.content.destroy();
  object.content = createReadStream(store.getResourcePath(bucket, key, 'object'), { start: 0, end: 0 });
  object.range = { start: 0, end: 0 };
  return object;
};
const listObjects = store.listObjects.bind(store);
store.listObjects = async (bucket, options) => {
  const { delimiter, prefix = '', maxKeys = Infinity } = options;
  if (!delimiter) return listObjects(bucket, options);
  const all = await listObjects(bucket, { ...options, delimiter: '', maxKeys: Infinity });
  const commonPrefixes = new Set<string>();
  const objects: Listing['objects'] = [];
  for (const object of all.objects) {
    const cut = object.key.indexOf(delimiter, prefix.length);
    if (cut === -1) objects.push(object);
    else commonPrefixes.add(object.key.slice(0, cut + delimiter.length));
  }
  return {
    objects: objects.slice(0, maxKeys),
    commonPrefixes: [...commonPrefixes].sort(),
    isTruncated: objects.length > maxKeys,
  };
};
// First in the chain, so that s3rver's router never answers these two with MethodNotAllowed.
server.middleware.unshift(missingOperations);
const listening = await server.run();
server.httpServer.keepAliveTimeout = 120_000;
process.stdout.write(`${JSON.stringify({ port: listening.port })}\n`);
