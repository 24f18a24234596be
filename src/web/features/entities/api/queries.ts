import { queryOptions } from '@tanstack/react-query';
import { forgetUploads, keepFor, uploadsHere } from '../../../lib/browser-memory';
import type { EntityFiles, EntityRef, StoredFile } from '../../../lib/platform/model';
import type { Platform } from '../../../lib/platform/platform';

/** Every query key of this feature, from one hierarchy, so invalidation can aim at a whole branch. */
export const entityKeys = {
  all: ['entities'] as const,
  account: () => [...entityKeys.all, 'account'] as const,
  files: (ref: EntityRef) => [...entityKeys.all, ref.type, ref.id] as const,
  uploadedHere: (ref: EntityRef) => [...entityKeys.files(ref), 'uploaded-here'] as const,
};

export const accountQuery = (platform: Platform) =>
  queryOptions({
    queryKey: entityKeys.account(),
    queryFn: async () => {
      const account = await platform.account();
      if (account) keepFor(account.user.id);
      return account;
    },
    staleTime: 60_000,
  });

export const entityFilesQuery = (platform: Platform, ref: EntityRef) =>
  queryOptions({ queryKey: entityKeys.files(ref), queryFn: () => platform.entityFiles(ref) });

/**
 * For an entity whose files the platform does not list: the ones uploaded from this browser, read back
 * one by one. Files that are gone are forgotten.
 */
export const uploadedHereQuery = (platform: Platform, ref: EntityRef) =>
  queryOptions({
    queryKey: entityKeys.uploadedHere(ref),
    queryFn: async (): Promise<EntityFiles> => {
      const ids = uploadsHere(ref);
      const found = await Promise.all(ids.map((id) => platform.file(id)));
      forgetUploads(ids.filter((_, i) => found[i] === null));
      return { ref, files: found.filter((file): file is StoredFile => file !== null) };
    },
  });
