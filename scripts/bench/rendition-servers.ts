/**
 * Baseline servers for the S6/S7 bench, each its own process like the platform:
 *   tsx scripts/bench/rendition-servers.ts static PORT DIR   @fastify/static serving DIR
 *   tsx scripts/bench/rendition-servers.ts sharp PORT FILE   bare sharp: GET /?x=&y=&w=&h=&width=
 */
import fastifyStatic from '@fastify/static';
import Fastify from 'fastify';
import sharp from 'sharp';

const [kind, port, path] = process.argv.slice(2);
const app = Fastify();

if (kind === 'static') {
  await app.register(fastifyStatic, { root: path! });
} else {
  // A fresh decode each time, as the platform's first request has: libvips would otherwise keep
  // the decoded file from the previous round in its operation cache.
  sharp.cache(false);
  app.get<{ Querystring: Record<string, string> }>('/', async (request, reply) => {
    const q = Object.fromEntries(Object.entries(request.query).map(([k, v]) => [k, Number(v)]));
    const bytes = await sharp(path!, { autoOrient: true })
      .extract({ left: q.x!, top: q.y!, width: q.w!, height: q.h! })
      .resize({ width: q.width!, withoutEnlargement: true })
      .webp()
      .toBuffer();
    return reply.type('image/webp').send(bytes);
  });
}
await app.listen({ port: Number(port), host: '127.0.0.1' });
