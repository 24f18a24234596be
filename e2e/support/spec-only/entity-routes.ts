import type { FastifyInstance } from 'fastify';
import { assetListAnswers, entityAnswers } from '../../../src/testing/spec-examples';
import { type AssetStore, assetJson, ownedEntity } from './asset-store';
import { entityRoutes as routesByType } from './fixtures';
import { authenticate } from './http';
import type { OAuthStore } from './oauth-store';
import type { ResolvedOptions } from './options';

type WithId = { Params: { id: string } };

/**
 * Spec 4: "Each resource that owns assets either sideloads them in its own response or gives a URL
 * for them in the links hash" — the shape is not shown, so `entityShape` picks one (or none at all).
 */
export function entityRoutes(
  app: FastifyInstance,
  { assets, tokens, options }: { assets: AssetStore; tokens: OAuthStore; options: ResolvedOptions },
) {
  const shape = options.entityShape;
  if (shape === 'missing') return;

  for (const [type, { plural, singular }] of Object.entries(routesByType)) {
    app.get<WithId>(`/v2/core/${plural}/:id`, async (request) => {
      const entity = ownedEntity(type, request.params.id, authenticate(request, tokens, 'read'));
      const body = { id: entity.id, name: entity.name, ...entity.attributes };
      const list = assets.ofEntity(entity).map(assetJson);
      if (shape === 'sideloaded') return entityAnswers.sideloaded(singular, body, list);
      if (shape === 'top-level') return entityAnswers.topLevel(singular, body, list);
      return entityAnswers.linksOnly(singular, body, `/v2/core/${plural}/${entity.id}/assets`);
    });

    if (shape === 'links-only') {
      app.get<WithId>(`/v2/core/${plural}/:id/assets`, async (request) => {
        const entity = ownedEntity(type, request.params.id, authenticate(request, tokens, 'read'));
        const list = assets.ofEntity(entity).map(assetJson);
        return assetListAnswers[options.assetList](list);
      });
    }
  }
}
