import type { FastifyInstance } from 'fastify';
import { assetAnswer, downloadUrlAnswer } from '../../../src/testing/spec-examples';
import { type AssetStore, assetJson, ownedEntity } from './asset-store';
import { isObject, readUpload } from './asset-upload';
import type { Downloads, Rendition } from './downloads';
import { authenticate, HttpError } from './http';
import type { OAuthStore } from './oauth-store';
import type { ResolvedOptions } from './options';

type WithId = { Params: { id: string } };

/** Spec 4.3–4.7. There is no collection route: GET /v2/core/assets is a 404 like any unknown path. */
export function assetRoutes(
  app: FastifyInstance,
  {
    assets,
    tokens,
    downloads,
    options,
  }: {
    assets: AssetStore;
    tokens: OAuthStore;
    downloads: Downloads;
    options: ResolvedOptions;
  },
) {
  app.post('/v2/core/assets', async (request, reply) => {
    const caller = authenticate(request, tokens, 'write');
    const fields = await readUpload(request, assets, options.maxUploadBytes, ({ type, id }) =>
      ownedEntity(type, String(id), caller),
    );
    return reply.code(201).send(assetAnswer(assetJson(assets.add(fields))));
  });

  app.get<WithId>('/v2/core/assets/:id', async (request) => {
    const caller = authenticate(request, tokens, 'read');
    return assetAnswer(assetJson(assets.owned(request.params.id, caller)));
  });

  /** Spec 4.6: response not shown (the `updateAnswer` switch); a new meta replaces the old one. */
  app.put<WithId>('/v2/core/assets/:id', async (request, reply) => {
    const caller = authenticate(request, tokens, 'write');
    const asset = assets.owned(request.params.id, caller);
    const body: unknown = request.body;
    if (!isObject(body) || !isObject(body.asset)) {
      throw new HttpError(400, 'param is missing or the value is empty: asset');
    }
    const changes = body.asset;
    const errors: string[] = [];
    if ('private' in changes && typeof changes.private !== 'boolean')
      errors.push('Private must be true or false');
    if ('name' in changes && (typeof changes.name !== 'string' || changes.name === '')) {
      errors.push('Name must be a non-empty string');
    }
    if ('meta' in changes && !isObject(changes.meta)) errors.push('Meta must be an object');
    if (errors.length > 0) throw new HttpError(422, errors);

    if (typeof changes.private === 'boolean') asset.private = changes.private;
    if (typeof changes.name === 'string') asset.name = changes.name;
    if (isObject(changes.meta)) asset.meta = changes.meta;
    if (options.updateAnswer === 204) return reply.code(204).send();
    return assetAnswer(assetJson(asset));
  });

  app.delete<WithId>('/v2/core/assets/:id', async (request, reply) => {
    const caller = authenticate(request, tokens, 'write');
    await assets.delete(assets.owned(request.params.id, caller));
    return reply.code(204).send();
  });

  app.get<WithId & { Querystring: Record<string, string | undefined> }>(
    '/v2/core/assets/:id/download_url',
    async (request) => {
      const caller = authenticate(request, tokens, 'read');
      const asset = assets.owned(request.params.id, caller);
      // Without the renditions switch these parameters mean nothing here, as on a spec-only platform.
      const rendition = options.renditions ? requestedRendition(request.query) : undefined;
      return downloadUrlAnswer(downloads.url(asset, rendition));
    },
  );
}

function requestedRendition(query: Record<string, string | undefined>): Rendition | undefined {
  const { variant, width } = query;
  if (variant === undefined) return undefined;
  if (variant !== 'preview' && variant !== 'cropped') {
    throw new HttpError(400, 'variant must be preview or cropped');
  }
  if (width !== undefined && !/^[1-9]\d{0,3}$/.test(width)) {
    throw new HttpError(400, 'width must be a whole number of pixels from 1 to 9999');
  }
  return { variant, width: width === undefined ? undefined : Number(width) };
}
