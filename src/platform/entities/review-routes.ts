import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { accreditationListSchema, accreditationSchema, historySchema } from '../../shared/api/accreditations';
import { problemSchema } from '../../shared/api/problem';
import { assetPageSizes } from '../../shared/api/paging';
import { accreditationListStatuses } from '../../shared/api/review';
import { idParams } from '../assets/asset-routes';
import type { PlatformContext } from '../context';
import { forbidden, insufficientScope, notFound, validationFailed } from '../errors';
import { decodeCursor, pageQuery } from '../paging';
import { historyList, historyPage } from './accreditation-history';
import { accreditationCursorLength, accreditationList, accreditationPage, decide } from './accreditations';
import { findEntity } from './entities';
import { visibleAssetPage } from './entity-assets';
import { visibleEntity } from './entity-routes';

const problems = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, problemSchema]));

const requireAdmin = (request: FastifyRequest) => {
  if (request.caller.role !== 'admin' || request.caller.scope !== 'full')
    throw forbidden('Only admins review accreditations.');
};

/**
 * The accreditation review (our extension): the admins' lists of pending and decided
 * accreditations, their decisions, and each accreditation's append-only history, which its owner
 * reads too.
 */
export async function reviewRoutes(app: FastifyInstance, { ctx }: { ctx: PlatformContext }) {
  const route = app.withTypeProvider<ZodTypeProvider>();

  route.get(
    '/v2/core/accreditations',
    {
      schema: {
        summary:
          'Accreditations by review status (admins): pending oldest first, decided newest decision first',
        tags: ['review'],
        security: [{ bearer: [] }],
        querystring: z.object({
          status: z
            .enum(accreditationListStatuses)
            .default('pending')
            .describe('pending, approved, rejected, or decided (approved and rejected together)'),
          ...pageQuery,
        }),
        response: { 200: accreditationListSchema, ...problems(401, 403, 422) },
      },
    },
    async (request) => {
      requireAdmin(request);
      const { status, cursor, limit } = request.query;
      const after = decodeCursor(cursor, accreditationList(status), accreditationCursorLength(status));
      const page = await accreditationPage(ctx.db, status, { after, limit });
      const accreditations = [];
      for (const accreditation of page.items) {
        // An accreditation holds a few documents; a page of the largest size holds them all.
        const visible = await visibleEntity(ctx, request, 'Accreditation', accreditation.id);
        const page = await visibleAssetPage(ctx, request.caller, visible, { limit: assetPageSizes.max });
        accreditations.push({ ...accreditation, assets: page.items });
      }
      const counts = { documents_needed: 0, pending: 0, approved: 0, rejected: 0 };
      return { accreditations, next_cursor: page.nextCursor, counts };
    },
  );

  route.put(
    '/v2/core/accreditations/:id',
    {
      schema: {
        summary:
          'Record a review decision (admins); deciding again corrects it, repeating it changes nothing',
        tags: ['review'],
        security: [{ bearer: [] }],
        params: idParams,
        headers: z.object({ 'if-match': z.string().optional() }).passthrough(),
        body: z.object({
          accreditation: z
            .object({ status: z.enum(['approved', 'rejected']), note: z.string().max(2000).optional() })
            .strict(),
        }),
        response: {
          200: z.object({ accreditation: accreditationSchema }),
          ...problems(400, 401, 403, 404, 412, 415, 422),
        },
      },
    },
    async (request, reply) => {
      requireAdmin(request);
      const entity = await findEntity(ctx, 'Accreditation', request.params.id);
      if (!entity) throw notFound(`No Accreditation ${request.params.id}.`);
      const { status } = request.body.accreditation;
      const note = request.body.accreditation.note?.trim() || null;
      if (status === 'rejected' && !note) {
        throw validationFailed([
          { field: 'accreditation.note', message: 'say why the accreditation is rejected' },
        ]);
      }
      const accreditation = await decide(
        ctx.db,
        entity.id,
        { status, note },
        request.caller.userId,
        ctx.clock(),
        request.headers['if-match'],
      );
      reply.header('etag', accreditation.etag);
      return { accreditation };
    },
  );

  route.get(
    '/v2/core/accreditations/:id/history',
    {
      schema: {
        summary: "An accreditation's history, newest first: decisions and changes to its files",
        tags: ['review'],
        security: [{ bearer: [] }],
        params: idParams,
        querystring: z.object(pageQuery),
        response: { 200: historySchema, ...problems(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { caller } = request;
      const entity = await findEntity(ctx, 'Accreditation', request.params.id);
      const owns = entity?.ownerId === caller.userId;
      // Admins and the owner; for anyone else the accreditation does not exist.
      if (!entity || (!owns && !(caller.role === 'admin' && caller.scope === 'full')))
        throw notFound(`No Accreditation ${request.params.id}.`);
      // It names private files, which a `basic` token does not show.
      if (caller.scope !== 'full') throw insufficientScope('full');
      const { cursor, limit } = request.query;
      const before = decodeCursor(cursor, historyList(entity.id), 1)?.[0];
      const page = await historyPage(ctx.db, entity.id, { before, limit });
      return { history: page.items, next_cursor: page.nextCursor };
    },
  );
}
