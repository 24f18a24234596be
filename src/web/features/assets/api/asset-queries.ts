import { queryOptions, useMutation, useQueryClient, type QueryKey } from '@tanstack/react-query';
import type { Asset } from '../../../../shared/assets/asset';
import type { ApiClient } from '../../../lib/api-client';
import {
  deleteAsset,
  downloadUrl,
  updateAsset,
  type AssetChanges,
  type Variant,
} from '../../../lib/platform-api';
import { useServices } from '../../../lib/services';

/** Every query key of this feature, from one hierarchy. */
export const assetKeys = {
  all: ['assets'] as const,
  url: (id: number, variant: Variant, width: number | undefined, version: string) =>
    [...assetKeys.all, id, 'url', variant, width ?? 'full', version] as const,
};

/** Download URLs live minutes (DOWNLOAD_URL_TTL, 5 by default): ask again well before they expire. */
const urlLifetimeMs = 4 * 60_000;

/**
 * A signed address for showing a file. `version` changes when the file's look changes (a new crop), so
 * the browser never shows a stale rendition from its cache.
 */
export const downloadUrlQuery = (
  api: ApiClient,
  asset: Pick<Asset, 'id' | 'updated_at'>,
  variant: Variant,
  width?: number,
) =>
  queryOptions({
    queryKey: assetKeys.url(asset.id, variant, width, asset.updated_at ?? ''),
    queryFn: () => downloadUrl(api, asset.id, variant, width),
    staleTime: urlLifetimeMs,
    gcTime: urlLifetimeMs,
  });

interface EntityData {
  assets: Asset[];
}

/**
 * Rename, privacy and crop: shown at once in the entity's cached data, rolled back if the platform
 * refuses (TanStack Query "optimistic updates"). `entityKey` is the query that lists the asset.
 */
export function useUpdateAsset(entityKey: QueryKey) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, changes }: { id: number; changes: AssetChanges }) => updateAsset(api, id, changes),
    onMutate: async ({ id, changes }) => {
      await queryClient.cancelQueries({ queryKey: entityKey });
      const before = queryClient.getQueryData<EntityData>(entityKey);
      queryClient.setQueryData<EntityData>(
        entityKey,
        (data) =>
          data && { ...data, assets: data.assets.map((a) => (a.id === id ? { ...a, ...changes } : a)) },
      );
      return { before };
    },
    onError: (_error, _variables, context) => {
      if (context?.before) queryClient.setQueryData(entityKey, context.before);
    },
    onSuccess: (asset) => {
      queryClient.setQueryData<EntityData>(
        entityKey,
        (data) => data && { ...data, assets: data.assets.map((a) => (a.id === asset.id ? asset : a)) },
      );
    },
  });
}

/** Delete is not optimistic: the card says "Deleting…" until the platform confirms. */
export function useDeleteAsset(entityKey: QueryKey) {
  const { api } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => deleteAsset(api, id),
    onSuccess: (_nothing, id) => {
      queryClient.setQueryData<EntityData>(
        entityKey,
        (data) => data && { ...data, assets: data.assets.filter((a) => a.id !== id) },
      );
      return queryClient.invalidateQueries({ queryKey: entityKey });
    },
  });
}
