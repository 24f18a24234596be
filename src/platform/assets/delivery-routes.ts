import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PlatformContext } from '../context';
import { ApiError, notFound } from '../errors';
import { findAssetRow } from './asset-records';
import { deliveryPath, signatureMatches, variants } from './download-urls';
import { idParams } from './asset-routes';
import { originalFile, renditionFile } from '../media/delivered-file';

const inlineTypes = /^(image\/(jpeg|png|webp|gif|avif)|application\/pdf)$/;

/** `Content-Disposition` with an ASCII fallback and the exact name in RFC 5987 form. */
export function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/** Parses a single `bytes=a-b`, `bytes=a-` or `bytes=-n` range; multiple ranges are not offered. */
function parseRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | undefined {
  if (!header) return undefined;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  let start: number;
  let end: number;
  if (match[1] === '') {
    start = Math.max(0, size - Number(match[2]));
    end = size - 1;
  } else {
    start = Number(match[1]);
    end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  }
  if (start > end || start >= size) return 'unsatisfiable';
  return { start, end };
}

/**
 * The file delivery behind download URLs. The signature is the only credential (no bearer token),
 * so it lives outside /v2/core. Answers are sandboxed: a file can never run as a page of ours.
 */
export async function deliveryRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: ['GET', 'HEAD'],
    url: deliveryPath(':id' as unknown as number),
    schema: {
      hide: true,
      params: idParams,
      querystring: z.object({
        variant: z.enum(variants),
        width: z.coerce.number().int().positive().optional(),
        expires: z.coerce.number().int().positive(),
        signature: z.string().min(1),
      }),
    },
    handler: async (request, reply) => {
      const { id } = request.params;
      const { variant, width, expires, signature } = request.query;
      const row = await findAssetRow(ctx, id);
      if (!row) throw notFound('This file no longer exists.');
      const target = { assetId: id, variant, width: width ?? null, expires };
      if (!signatureMatches(ctx.signingKey, target, row.blob_key, signature)) {
        throw new ApiError(403, 'invalid_signature', 'This download link is not valid.');
      }
      const secondsLeft = expires - Math.floor(ctx.clock() / 1000);
      if (secondsLeft <= 0)
        throw new ApiError(403, 'link_expired', 'This download link has expired; ask for a new one.');

      const file =
        variant === 'original' ? originalFile(ctx, row) : await renditionFile(ctx, row, { variant, width });
      const range = parseRange(request.headers.range, file.size);
      reply.headers({
        'content-type': file.contentType,
        'content-disposition': contentDisposition(
          inlineTypes.test(file.contentType) ? 'inline' : 'attachment',
          file.name,
        ),
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
        // Images are shown by the web app, which lives on another origin.
        'cross-origin-resource-policy': 'cross-origin',
        'accept-ranges': 'bytes',
        'cache-control': `private, max-age=${secondsLeft}`,
        etag: file.etag,
      });
      if (range === 'unsatisfiable') {
        await file.close();
        return reply.code(416).header('content-range', `bytes */${file.size}`).send();
      }
      const length = range ? range.end - range.start + 1 : file.size;
      reply.header('content-length', length);
      if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${file.size}`);
      if (request.method === 'HEAD') {
        await file.close();
        return reply.send();
      }
      const stream = await file.open(range);
      if (!stream) throw notFound('This file no longer exists.');
      return reply.send(stream);
    },
  });
}
