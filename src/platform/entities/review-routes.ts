import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  type AccreditationUpdate,
  accreditationListSchema,
  accreditationSchema,
  accreditationUpdateSchema,
  historySchema,
} from '../../shared/api/accreditations';
import { assetPageSizes } from '../../shared/api/paging';
import { accreditationListStatuses } from '../../shared/api/review';
import { idParams, problems, type ZodRoutes } from '../http/route-schemas';
import { forbidden, insufficientScope, notFound, validationFailed } from '../http/errors';
import type { Caller } from '../access/caller';
import type { EntitiesContext } from './entities-context';
import { decodeCursor, pageQuery } from '../http/paging';
import { historyList, historyPage } from './accreditation-history';
import {
  accreditationCursorLength,
  accreditationList,
  accreditationPage,
  decide,
  decisionOf,
  updateAsOwner,
} from './accreditations';
import { findEntity } from '../access/entity-access';
import { type EntityRouteOptions, visibleEntity } from './entity-routes';

const isAdmin = (caller: Caller) => caller.role === 'admin' && caller.scope === 'full';

const requireAdmin = (request: FastifyRequest) => {
  if (!isAdmin(request.caller)) throw forbidden('Only admins review accreditations.');
};

/**
 * Whose a `PUT /v2/core/accreditations/:id` is, from what it sends: a decision (`status` approved
 * or rejected, `reason`, `note`) is an admin's, "Send for review" (`status: "pending"`) and the
 * answer about the address are the owner's. Anyone sending the other side's fields is refused (403);
 * both sides in one request (only an admin who owns the accreditation could) or neither is a 422.
 */
function updateKind(update: AccreditationUpdate, caller: Caller, owns: boolean): 'decision' | 'owner' {
  const decides =
    update.status === 'approved' ||
    update.status === 'rejected' ||
    update.reason !== undefined ||
    update.note !== undefined;
  const answers = update.status === 'pending' || update.address_on_licence !== undefined;
  if (decides && !isAdmin(caller)) throw forbidden('Only admins decide on accreditations.');
  if (answers && !owns)
    throw forbidden('Only its investor sends an accreditation for review or changes its answers.');
  if (decides !== answers) return decides ? 'decision' : 'owner';
  throw validationFailed([
    {
      field: 'accreditation',
      message: decides
        ? "send a decision and the investor's answers in separate requests"
        : 'say what to change: status, or address_on_licence',
    },
  ]);
}

/**
 * The accreditation review (our extension; decisions.md "Review and evidence"): the admins' lists
 * of accreditations by status, with search and counts; their decisions and the owner's "Send for
 * review" and address answer; and each accreditation's append-only history, which its owner reads too.
 */
export async function reviewRoutes(app: FastifyInstance, { ctx, assetPage }: EntityRouteOptions) {
  const route = app.withTypeProvider<ZodTypeProvider>();
  registerList(route, ctx, assetPage);
  registerUpdate(route, ctx);
  registerHistory(route, ctx);
}

/** The admins' lists, each accreditation with its documents. */
function registerList(route: ZodRoutes, ctx: EntitiesContext, assetPage: EntityRouteOptions['assetPage']) {
  route.get(
    '/v2/core/accreditations',
    {
      schema: {
        summary:
          'Accreditations by review status (admins): pending oldest sent first, decided newest decision first; q searches owners; counts per status',
        tags: ['review'],
        security: [{ bearer: [] }],
        querystring: z.object({
          status: z
            .enum(accreditationListStatuses)
            .default('pending')
            .describe(
              'documents_needed, pending, approved, rejected, or decided (approved and rejected together)',
            ),
          q: z
            .string()
            .trim()
            .max(200)
            .optional()
            .describe("Only those whose owner's name or email contains this (any case)."),
          ...pageQuery,
        }),
        response: { 200: accreditationListSchema, ...problems(401, 403, 422) },
      },
    },
    async (request) => {
      requireAdmin(request);
      const { status, cursor, limit } = request.query;
      const q = request.query.q || undefined;
      const after = decodeCursor(cursor, accreditationList(status, q), accreditationCursorLength(status));
      const page = await accreditationPage(ctx.db, status, { after, limit, q });
      const accreditations = [];
      for (const accreditation of page.items) {
        // An accreditation holds a few documents; a page of the largest size holds them all.
        const visible = await visibleEntity(ctx, request, 'Accreditation', accreditation.id);
        const page = await assetPage(request.caller, visible, { limit: assetPageSizes.max });
        accreditations.push({ ...accreditation, assets: page.items });
      }
      return { accreditations, next_cursor: page.nextCursor, counts: page.counts };
    },
  );
}

/** An admin's decision, or the owner's send for review and address answer. */
function registerUpdate(route: ZodRoutes, ctx: EntitiesContext) {
  route.put(
    '/v2/core/accreditations/:id',
    {
      schema: {
        summary:
          'Decide (admins: approved, or rejected with a reason), or send for review and answer the address question (the owner)',
        description:
          'Admins: `status` approved or rejected; rejected needs `reason`, and `other` a `note` (422); ' +
          'deciding again corrects it, repeating it changes nothing; one not sent for review is 409 ' +
          '`not_submitted`. The owner: `status: "pending"` sends it for review (422 naming each unmet ' +
          '`requirements.<kind>`; already waiting: no change); `address_on_licence` changes what it ' +
          'needs (409 `in_review` while waiting; after a decision it reopens it). `If-Match` for everyone (412).',
        tags: ['review'],
        security: [{ bearer: [] }],
        params: idParams,
        headers: z.object({ 'if-match': z.string().optional() }).passthrough(),
        body: accreditationUpdateSchema,
        response: {
          200: z.object({ accreditation: accreditationSchema }),
          ...problems(400, 401, 403, 404, 409, 412, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const { caller } = request;
      const entity = await findEntity(ctx.db, 'Accreditation', request.params.id);
      const owns = entity?.ownerId === caller.userId;
      // Admins and the owner; for anyone else the accreditation does not exist.
      if (!entity || (!owns && !isAdmin(caller))) throw notFound(`No Accreditation ${request.params.id}.`);
      const update = request.body.accreditation;
      const ifMatch = request.headers['if-match'];
      let accreditation;
      if (updateKind(update, caller, owns) === 'decision') {
        const { status } = update;
        if (status !== 'approved' && status !== 'rejected')
          throw validationFailed([{ field: 'accreditation.status', message: 'say approved or rejected' }]);
        const decision = decisionOf({ ...update, status });
        accreditation = await decide(ctx.db, entity.id, decision, caller.userId, ctx.clock(), ifMatch);
      } else {
        if (caller.scope !== 'full') throw insufficientScope('full');
        accreditation = await updateAsOwner(
          ctx.db,
          entity.id,
          { submit: update.status === 'pending', addressOnLicence: update.address_on_licence },
          caller.userId,
          ctx.clock(),
          ifMatch,
        );
      }
      reply.header('etag', accreditation.etag);
      return { accreditation };
    },
  );
}

function registerHistory(route: ZodRoutes, ctx: EntitiesContext) {
  route.get(
    '/v2/core/accreditations/:id/history',
    {
      schema: {
        summary:
          "An accreditation's history, newest first: sends for review, decisions with the files they were made on, reopenings and changes to its files",
        tags: ['review'],
        security: [{ bearer: [] }],
        params: idParams,
        querystring: z.object(pageQuery),
        response: { 200: historySchema, ...problems(401, 403, 404, 422) },
      },
    },
    async (request) => {
      const { caller } = request;
      const entity = await findEntity(ctx.db, 'Accreditation', request.params.id);
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
