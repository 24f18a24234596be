/**
 * Baseline servers for `npm run bench` and `npm run bench:peers`, each run as its own process so
 * that its CPU time and memory can be read from /proc:  tsx scripts/bench/servers.ts KIND PORT ARG
 *   pipe PORT DIR        a bare node:http server piping the request body to disk (S1–S3)
 *   hello PORT           Fastify hello world (S4, S5)
 *   multipart PORT DIR   Fastify + @fastify/multipart writing the file part to disk, fsynced (Peer-2)
 *   bare-read PORT DB    Fastify + better-sqlite3 answering GET /v2/core/assets/:id from the
 *                        platform's database file, with a bearer token (Peer-4, S4c); with
 *                        BARE_READ_HEADERS (JSON) it also sends those headers on every answer
 */
import { createHash } from 'node:crypto';
import { createWriteStream, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import multipart from '@fastify/multipart';
import Database from 'better-sqlite3';
import Fastify from 'fastify';

const [kind, port, arg] = process.argv.slice(2);
// An orderly exit, so that a server started with `node --cpu-prof` writes its profile.
process.once('SIGTERM', () => process.exit(0));

if (kind === 'pipe') {
  let n = 0;
  createServer(async (req, res) => {
    const file = join(arg!, `upload-${n++}`);
    await pipeline(req, createWriteStream(file));
    rmSync(file);
    res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
  }).listen(Number(port), '127.0.0.1');
} else if (kind === 'multipart') {
  // What a Fastify user writes to take uploads: the file part streamed to a file, fsynced before the 201.
  const app = Fastify();
  await app.register(multipart, { limits: { fileSize: 200 * 1024 * 1024 } });
  let n = 0;
  app.post('/upload', async (request, reply) => {
    const part = await request.file();
    if (!part) return reply.code(400).send({ error: 'no file' });
    // `flush`: the file is fsynced before it is closed, and the pipeline ends after that.
    await pipeline(part.file, createWriteStream(join(arg!, `upload-${n++}`), { flush: true }));
    if (part.file.truncated) return reply.code(413).send({ error: 'too large' });
    return reply.code(201).send({ name: part.filename });
  });
  await app.listen({ port: Number(port), host: '127.0.0.1' });
} else if (kind === 'bare-read') {
  await bareRead();
} else {
  const app = Fastify();
  app.get('/', async () => ({ hello: 'world' }));
  await app.listen({ port: Number(port), host: '127.0.0.1' });
}

/**
 * The least a server needs to answer GET /v2/core/assets/:id as ours does: the bearer token's hash
 * looked up (in memory after the first time, as ours caches it), the asset row read with its
 * thumbnail's id and its entity's owner in one prepared statement, the same JSON and ETag. What it
 * leaves out: rate limiting, security headers, CORS, id validation beyond digits, revocation.
 */
async function bareRead() {
  const db = new Database(arg!, { readonly: true });
  const callerOf = db.prepare(
    `SELECT users.id AS userId, users.role FROM access_tokens
     JOIN grants ON grants.id = access_tokens.grant_id JOIN users ON users.id = grants.user_id
     WHERE access_tokens.token_hash = ? AND access_tokens.expires_at > ? AND access_tokens.revoked_at IS NULL
     AND grants.revoked_at IS NULL`,
  );
  const assetOf = db.prepare(
    `SELECT assets.*, (SELECT t.id FROM assets t WHERE t.thumbnail_of = assets.id LIMIT 1) AS thumbnail_id,
     CASE assets.assetable_type
       WHEN 'Product' THEN (SELECT owner_id FROM products WHERE products.id = assets.assetable_id)
       WHEN 'Investment' THEN (SELECT owner_id FROM investments WHERE investments.id = assets.assetable_id)
       WHEN 'User' THEN assets.assetable_id
     END AS owner_id
     FROM assets WHERE assets.id = ?`,
  );
  const callers = new Map<string, { userId: number; role: string }>();
  type Row = Record<string, string | number | null>;

  const app = Fastify();
  const extraHeaders = JSON.parse(process.env.BARE_READ_HEADERS ?? '{}') as Record<string, string>;
  if (Object.keys(extraHeaders).length > 0)
    app.addHook('onRequest', (_request, reply, done) => {
      reply.headers(extraHeaders);
      done();
    });
  app.get<{ Params: { id: string } }>('/v2/core/assets/:id', async (request, reply) => {
    const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (!token) return reply.code(401).send({ error: 'invalid_token' });
    const hash = createHash('sha256').update(token).digest('base64url');
    let caller = callers.get(hash);
    if (!caller) {
      caller = callerOf.get(hash, Date.now()) as typeof caller;
      if (!caller) return reply.code(401).send({ error: 'invalid_token' });
      callers.set(hash, caller);
    }
    const row = /^[1-9][0-9]{0,14}$/.test(request.params.id)
      ? (assetOf.get(Number(request.params.id)) as Row | undefined)
      : undefined;
    const visible =
      row && (row.private === 0 ? true : row.owner_id === caller.userId || caller.role === 'admin');
    if (!row || !visible) return reply.code(404).send({ error: 'not_found' });
    const etag = `"${row.id}.${row.version}"`;
    reply.header('etag', etag).header('cache-control', 'private, no-cache');
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return {
      asset: {
        id: row.id,
        name: row.name,
        file_type: row.file_type,
        assetable: { type: row.assetable_type, id: row.assetable_id },
        key: row.blob_key,
        meta: JSON.parse(row.meta as string) as unknown,
        private: row.private === 1,
        thumbifiable: false,
        ...(row.thumbnail_id !== null ? { thumbnail_id: String(row.thumbnail_id) } : {}),
        content_type: row.content_type,
        size: row.size,
        ...(row.width !== null ? { width: row.width, height: row.height } : {}),
        created_at: new Date(row.created_at as number).toISOString(),
        updated_at: new Date(row.updated_at as number).toISOString(),
        etag,
      },
    };
  });
  await app.listen({ port: Number(port), host: '127.0.0.1' });
}
