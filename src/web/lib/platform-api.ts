import { entityPath } from '../../shared/api/entities';
import type { AssetableType, Me } from '../../shared/api/me';
import type { Asset } from '../../shared/assets/asset';
import type { ApiClient } from './api-client';

/**
 * Every shape the web app assumes that the spec leaves "not shown" (`/me`, entity sideloads, review)
 * is read here and nowhere else, so pointing the app at another platform changes this one file. The
 * shapes are typed from the shared contract; they are not re-validated with zod in the browser, which
 * would make zod the largest library on the first page (performance.md W1).
 */

export function fetchMe(api: ApiClient): Promise<Me> {
  return api.request<Me>('/v2/core/me');
}

export interface EntityWithAssets {
  type: AssetableType;
  id: number;
  name: string;
  assets: Asset[];
}

type EntityBody = { assets?: Asset[] } & Record<string, { id: number; name: string } | Asset[] | undefined>;

/** `GET /v2/core/<plural>/:id`: `{ "<singular>": {...}, "assets": [...] }` (decisions.md sideloads). */
export async function fetchEntity(
  api: ApiClient,
  type: AssetableType,
  id: number,
): Promise<EntityWithAssets> {
  const body = await api.request<EntityBody>(entityPath(type, id));
  const [, entity] = Object.entries(body).find(([key]) => key !== 'assets') ?? [];
  if (!entity || Array.isArray(entity)) throw new Error(`The platform sent no ${type} ${id}.`);
  return { type, id: entity.id, name: entity.name, assets: body.assets ?? [] };
}
