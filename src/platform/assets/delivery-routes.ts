import { create as contentDisposition } from 'content-disposition';
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fresh from 'fresh';
import parseRange from 'range-parser';
import { z } from 'zod';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { problemSchema } from '../../shared/api/problem';
import type { AssetsContext } from './assets-context';
import { assetById } from '../db/repositories/assets';
import { ApiError, notFound } from '../http/errors';
import { deliveryPath, signatureMatches, urlState } from './download-urls';
import { thumbnailPending } from './asset-routes';
import { idParams } from '../http/route-schemas';
import { originalFile, renditionFile } from '../media/delivered-file';
import { renditionFor, variants } from '../media/rendition-request';

const redirectToBucket = (ctx: AssetsContext) =>
  ctx.config.blobStore.kind === 's3' && ctx.config.blobStore.delivery === 'redirect';

const inlineTypes = /^(image\/(jpeg|png|webp|gif|avif)|application\/pdf)$/;

const invalidLink = () =>
  new ApiError(403, 'invalid_signature', 'This download link is not valid (any more); ask for a new one.');
const expiredLink = () =>
  new ApiError(403, 'link_expired', 'This download link has expired; ask for a new one.');

/** A file's bytes, of its own type: sent as a stream, never serialized; documented as binary. */
const bytes = (description: string) => ({
  description,
  content: { '*/*': { schema: z.custom<Readable>().meta({ type: 'string', format: 'binary' }) } },
});
const noBody = z.undefined();
const problem = (description: string) => problemSchema.describe(description);

/**
 * The range to send, per RFC 9110: none unless `If-Range` (when sent) is the current ETag, compared
 * strongly (a date never matches: there is no Last-Modified); overlapping and adjacent ranges are
 * merged; a malformed header, another unit or several disjoint ranges get the whole file (14.2 lets
 * a server ignore Range, and no client here needs multipart/byteranges).
 */
function rangeOf(request: FastifyRequest, etag: string, size: number) {
  const { range, 'if-range': ifRange } = request.headers;
  if (!range || (ifRange !== undefined && ifRange !== etag)) return undefined;
  const ranges = parseRange(size, range, { combine: true });
  if (ranges === -1) return 'unsatisfiable';
  if (ranges === -2 || ranges.type !== 'bytes' || ranges.length !== 1) return undefined;
  return ranges[0];
}

/** GET and HEAD of a download URL, for validation and the OpenAPI document. */
const deliverySchema = {
  summary: 'Download a file by the signed URL of GET /v2/core/assets/{id}/download_url',
  description:
    'The signature is the credential: no bearer token. Range, If-Range and If-None-Match are honoured. ' +
    'A URL stops working when it expires, and at once when its asset is deleted, made private or ' +
    'public, or (for variant=cropped) given another crop.',
  tags: ['assets'],
  params: idParams,
  querystring: z.object({
    variant: z.enum(variants),
    width: z.coerce.number().int().positive().optional().describe('Renditions: the rounded width.'),
    disposition: z
      .enum(['attachment'])
      .optional()
      .describe('Sent as an attachment (saved, not shown), when download_url was asked so.'),
    expires: z.coerce.number().int().positive().describe('Unix seconds.'),
    signature: z.string().min(1),
  }),
  response: {
    200: bytes('The file, or its rendition (WebP).'),
    302: noBody.describe(
      'With S3_DELIVERY=redirect: the file at a URL of the bucket that works for 60 s (Location).',
    ),
    206: bytes('One range of the file (Content-Range says which).'),
    304: noBody.describe('Not modified: the If-None-Match ETag is current.'),
    403: problem('A signature that does not match, a link that expired or was ended by a change.'),
    404: problem('An id that is not a plain decimal number, or a file deleted while being sent.'),
    409: problem(
      'A rendition whose crop changed while it was being sent; ask for a new link. A thumbnail still being made (thumbnail_pending, with Retry-After).',
    ),
    416: noBody.describe('No range satisfiable; Content-Range: bytes */size.'),
    422: problem('A query that is not a download URL (a parameter missing or malformed).'),
  },
};

/**
 * The file delivery behind download URLs. The signature is the only credential (no bearer token),
 * so it lives outside /v2/core. Answers are sandboxed: a file can never run as a page of ours.
 */
export async function deliveryRoutes(app: FastifyInstance, { ctx }: { ctx: AssetsContext }) {
  app.withTypeProvider<ZodTypeProvider>().route({
    method: ['GET', 'HEAD'],
    url: deliveryPath(':id' as unknown as number),
    schema: deliverySchema,
    handler: async (request, reply) => {
      const { id } = request.params;
      const { variant, width, disposition: wanted, expires, signature } = request.query;
      const secondsLeft = expires - Math.floor(ctx.clock() / 1000);
      if (secondsLeft <= 0) throw expiredLink();
      const row = await assetById(ctx.db, id);
      const target = {
        assetId: id,
        variant,
        width: width ?? null,
        expires,
        ...(wanted && { disposition: wanted }),
      };
      // A missing asset answers like a bad signature, so that nobody without a link learns which ids
      // exist (H4); nothing about the asset is looked at before the signature holds.
      if (!row || !signatureMatches(ctx.signingKey, target, urlState(row, variant), signature))
        throw invalidLink();
      // No URL is ever signed for a pending thumbnail (download_url answers 409), and its reserved key
      // is part of what a URL is signed over; said here too rather than left to a missing file.
      if (row.pending === 1) throw thumbnailPending(ctx, row);

      const file =
        variant === 'original'
          ? originalFile(ctx, row)
          : renditionFile(ctx, row, renditionFor(row, { variant, width })!);
      const validators = { etag: file.etag, 'cache-control': `private, max-age=${secondsLeft}` };
      // Only If-None-Match: `Cache-Control: no-cache` in a request is for caches on the way (RFC 9111
      // 5.2.1.4), not a reason for the origin to skip the comparison, and fetch() sends it with every
      // conditional request (fresh() would then never answer 304).
      if (fresh({ 'if-none-match': request.headers['if-none-match'] }, validators))
        return reply.code(304).headers(validators).send(undefined);

      const disposition = contentDisposition(file.name, {
        type: !wanted && inlineTypes.test(file.contentType) ? 'inline' : 'attachment',
      });
      // S3_DELIVERY=redirect: every check above is done; the bucket sends the bytes (and honours
      // Range) under a URL that works for a minute. HEAD is answered here, without the bucket.
      if (redirectToBucket(ctx) && request.method === 'GET') {
        const location = await file.presignedUrl({
          contentType: file.contentType,
          contentDisposition: disposition,
          cacheControl: validators['cache-control'],
        });
        if (location)
          return reply.code(302).headers({ location, 'cache-control': 'no-store' }).send(undefined);
      }

      const opened = await file.open();
      const range = rangeOf(request, file.etag, opened.size);
      if (range === 'unsatisfiable') {
        await opened.close();
        return reply.code(416).header('content-range', `bytes */${opened.size}`).send(undefined);
      }
      const body = request.method === 'HEAD' ? undefined : await opened.stream(range);
      if (request.method === 'HEAD') await opened.close();
      else if (!body) throw notFound('This file no longer exists.');

      if (range) reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${opened.size}`);
      return reply
        .headers({
          ...validators,
          'content-type': file.contentType,
          'content-length': range ? range.end - range.start + 1 : opened.size,
          'content-disposition': disposition,
          'accept-ranges': 'bytes',
          'x-content-type-options': 'nosniff',
          'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
          // Images are shown by the web app, which lives on another origin.
          'cross-origin-resource-policy': 'cross-origin',
        })
        .send(body);
    },
  });
}
