import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiClient } from '../../lib/api-client';
import { fetchReviewQueue, reviewAccreditation } from '../../lib/platform-api';
import { useServices } from '../../lib/services';

export const reviewKeys = {
  all: ['review'] as const,
  pending: () => [...reviewKeys.all, 'pending'] as const,
};

export const reviewQueueQuery = (api: ApiClient) =>
  queryOptions({ queryKey: reviewKeys.pending(), queryFn: () => fetchReviewQueue(api) });

export function useReviewDecision() {
  const { api } = useServices();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (decision: { id: number; status: 'approved' | 'rejected'; note: string }) =>
      reviewAccreditation(api, decision.id, decision),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: reviewKeys.all }),
  });
}
