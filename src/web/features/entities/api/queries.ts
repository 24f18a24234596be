import { queryOptions } from '@tanstack/react-query';
import type { AssetableType } from '../../../../shared/api/me';
import type { ApiClient } from '../../../lib/api-client';
import { fetchEntity, fetchMe } from '../../../lib/platform-api';

/** Every query key of this feature, from one hierarchy, so invalidation can aim at a whole branch. */
export const entityKeys = {
  all: ['entities'] as const,
  me: () => [...entityKeys.all, 'me'] as const,
  detail: (type: AssetableType, id: number) => [...entityKeys.all, type, id] as const,
};

export const meQuery = (api: ApiClient) =>
  queryOptions({ queryKey: entityKeys.me(), queryFn: () => fetchMe(api), staleTime: 60_000 });

export const entityQuery = (api: ApiClient, type: AssetableType, id: number) =>
  queryOptions({ queryKey: entityKeys.detail(type, id), queryFn: () => fetchEntity(api, type, id) });
