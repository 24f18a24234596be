/**
 * Baseline servers for `npm run bench`, each run as its own process so its CPU time and memory can
 * be read from /proc:  tsx scripts/bench/servers.ts pipe|hello PORT DIR
 */
import { createWriteStream, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import Fastify from 'fastify';

const [kind, port, dir] = process.argv.slice(2);

if (kind === 'pipe') {
  // A bare node:http server piping the request body to disk.
  let n = 0;
  createServer(async (req, res) => {
    const file = join(dir!, `upload-${n++}`);
    await pipeline(req, createWriteStream(file));
    rmSync(file);
    res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
  }).listen(Number(port), '127.0.0.1');
} else {
  const app = Fastify();
  app.get('/', async () => ({ hello: 'world' }));
  await app.listen({ port: Number(port), host: '127.0.0.1' });
}
