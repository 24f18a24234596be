import type { IncomingMessage } from 'node:http';
import { EVENTS } from '@tus/utils';
import { Server } from '@tus/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { resumableUploadsPath } from '../../../shared/api/resumable-uploads';
import type { AssetsContext } from '../assets-context';
import { deleteResumableUpload } from '../../db/repositories/resumable-uploads';
import type { createUploadGuard } from '../upload-guard';
import { recordCreatedUpload } from './resumable-creation';
import { finishResumableUpload } from './resumable-finish';
import type { ResumableStore } from './resumable-store';
import { tusRefusalAsProblem, writeRefusalsAsProblemJson } from './tus-answers';
import type { CheckedMetadata } from './upload-metadata';

/** What the Fastify side knows of a request that tus handles: the caller, and the checked metadata. */
interface Handed {
  request: FastifyRequest;
  metadata?: CheckedMetadata;
  /** tus is answering this request with one of its refusals, as problem+json (tusRefusalAsProblem). */
  problem?: boolean;
}

type UploadGuard = ReturnType<typeof createUploadGuard>;

/** tus hands its hooks srvx's request; the Node request under it is where ours is found. */
const nodeRequestOf = (req: unknown) =>
  (req as { runtime?: { node?: { req?: IncomingMessage } } }).runtime?.node?.req;

/**
 * @tus/server, and the requests Fastify hands over to it once it has authenticated, rate-limited
 * and checked them. tus then owns the request and the answer; its hooks find the Fastify request
 * (the caller, the checked metadata) by the Node request under srvx's.
 */
export class TusHandOver {
  private readonly handed = new WeakMap<IncomingMessage, Handed>();
  private readonly server: Server;

  constructor(
    private readonly ctx: AssetsContext,
    private readonly store: ResumableStore,
    private readonly guard: UploadGuard,
  ) {
    this.server = this.createServer();
  }

  /** Hands the request to tus with the headers Fastify's hooks set (request id, CORS, …). */
  async hand(request: FastifyRequest, reply: FastifyReply, metadata?: CheckedMetadata) {
    for (const [name, value] of Object.entries(reply.getHeaders()))
      if (value !== undefined) reply.raw.setHeader(name, value);
    const handedOver: Handed = { request, metadata };
    this.handed.set(request.raw, handedOver);
    writeRefusalsAsProblemJson(reply.raw, () => handedOver.problem === true);
    reply.hijack();
    // Too slow an upload (H8): its connection goes; what arrived is kept, and the client resumes.
    this.guard.signalOf(request).addEventListener('abort', () => request.raw.destroy(), { once: true });
    await this.server.handle(request.raw, reply.raw);
  }

  private createServer() {
    const { ctx } = this;
    const anyOrigin = ctx.config.webOrigins.includes('*');
    const server = new Server({
      path: resumableUploadsPath,
      datastore: this.store,
      locker: ctx.uploadLocker,
      maxSize: ctx.config.maxUploadBytes,
      // `/v2/core/uploads/<id>`: right behind the proxy and nginx alike, with nothing to rewrite.
      relativeLocation: true,
      allowedOrigins: (origin) => anyOrigin || ctx.config.webOrigins.includes(origin),
      allowedHeaders: ['Authorization', 'X-Request-Id'],
      exposedHeaders: ['Retry-After', 'X-Request-Id'],
      onUploadCreate: async (req, upload) => {
        const { request, metadata } = this.handedOf(req);
        if (!metadata) throw new Error('an upload created without its checked metadata');
        await recordCreatedUpload(ctx, request, metadata, upload.id);
        return {};
      },
      // tus answers its own errors; those that are no protocol answer (a store or lock failing) are
      // logged as ours are.
      onResponseError: (req, error) => {
        const known = 'status_code' in error ? error : undefined;
        const found = this.handedOrNot(req);
        if (!known || known.status_code >= 500)
          found?.request.log.error({ err: error }, 'resumable upload request failed');
        if (found) found.problem = true;
        return tusRefusalAsProblem(known ?? { status_code: 500, body: '' });
      },
      onUploadFinish: async (req, upload) =>
        finishResumableUpload(ctx, this.store, this.handedOf(req).request, upload),
    });
    server.on(EVENTS.POST_TERMINATE, (_req: unknown, _res: unknown, id: string) => {
      deleteResumableUpload(ctx.db, id).catch(() => {});
    });
    return server;
  }

  private handedOrNot(req: unknown): Handed | undefined {
    const raw = nodeRequestOf(req);
    return raw && this.handed.get(raw);
  }

  private handedOf(req: unknown): Handed {
    const found = this.handedOrNot(req);
    if (!found) throw new Error('a tus request that Fastify did not hand over');
    return found;
  }
}
