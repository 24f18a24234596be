import {
  infiniteQueryOptions,
  queryOptions,
  useInfiniteQuery,
  type InfiniteData,
} from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { fileTypesFor } from '../../../../shared/assets/file-types';
import { forgetUploads, keepFor, uploadsHere } from '../../../lib/browser-memory';
import type { FileList } from '../../../lib/file-lists';
import type { FirstResponses } from '../../../lib/platform/first-responses';
import type { EntityFiles, EntityRef, StoredFile } from '../../../lib/platform/model';
import type { Platform } from '../../../lib/platform/platform';

/** Every query key of this feature, from one hierarchy, so invalidation can aim at a whole branch. */
export const entityKeys = {
  all: ['entities'] as const,
  account: () => [...entityKeys.all, 'account'] as const,
  files: (ref: EntityRef) => [...entityKeys.all, ref.type, ref.id] as const,
  uploadedHere: (ref: EntityRef) => [...entityKeys.files(ref), 'uploaded-here'] as const,
};

/**
 * The signed-in user and what they own. `first`: the answers the page's start asked for, which the
 * first page's query takes (app/first-paint.ts); every other read asks the platform.
 */
export const accountQuery = (platform: Platform, first?: FirstResponses) =>
  queryOptions({
    queryKey: entityKeys.account(),
    queryFn: async () => {
      const account = await platform.account(first);
      if (account) keepFor(account.user.id);
      return account;
    },
    staleTime: 60_000,
  });

/**
 * An entity's files, a page at a time where the platform pages them: the cache holds the pages as
 * they came (useInfiniteQuery; reading it again reads every page loaded so far), and the app sees
 * them as one list (`joinPages`). The first page also brings the file in use in each single-file
 * slot, which on a long list may be pages away: newest first, a logo uploaded before 100 financial
 * documents is not on the first page. `first`: as for `accountQuery`.
 */
export const entityFilesQuery = (platform: Platform, ref: EntityRef, first?: FirstResponses) =>
  infiniteQueryOptions({
    queryKey: entityKeys.files(ref),
    queryFn: async ({ pageParam }): Promise<EntityFiles> => {
      if (pageParam === undefined)
        return platform.entityFiles(ref, { newestOf: singleFileTypes(ref), first });
      const { items, next } = await platform.moreFiles(ref, pageParam);
      return { ref, files: items, ...(next ? { next } : {}) };
    },
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next,
    select: joinPages,
    // The first page reads its entity before the page is drawn (app/first-paint.ts): fresh for a few
    // seconds, the answer is not read again the moment the page mounts. Changes made here update it.
    staleTime: 5_000,
  });

/**
 * `entityFilesQuery` as a page uses it. Reading the pages again (after an upload, on coming back to
 * the tab) starts each page where the fresh one before it ends, so files added meanwhile push the
 * oldest ones shown onto a page not loaded: the next page is loaded until every file shown before
 * is shown again (ids grow as files arrive, so the oldest shown has the lowest id).
 */
export function useEntityFiles(platform: Platform, ref: EntityRef) {
  const query = useInfiniteQuery(entityFilesQuery(platform, ref));
  const { data, hasNextPage, isFetching, fetchNextPage } = query;
  const oldestShown = useRef<number | null>(null);
  useEffect(() => {
    const files = data?.files;
    if (!files || files.length === 0 || isFetching) return;
    const oldest = files.reduce((lowest, file) => Math.min(lowest, file.id), Infinity);
    if (oldestShown.current !== null && oldest > oldestShown.current && hasNextPage) void fetchNextPage();
    else oldestShown.current = oldest;
  }, [data, hasNextPage, isFetching, fetchNextPage]);
  return query;
}

const singleFileTypes = (ref: EntityRef) =>
  fileTypesFor(ref.type)
    .filter((t) => t.singleFile)
    .map((t) => t.fileType);

/**
 * The pages as one list: the first page's entity with every file loaded so far, each once (a slot's
 * file brought early comes again on its own page), and `next` when more are to come.
 */
export function joinPages(data: InfiniteData<EntityFiles, string | undefined>): EntityFiles {
  const [first] = data.pages;
  if (!first || first.files === null) return first ?? { ref: { type: 'User', id: 0 }, files: null };
  const seen = new Set<number>();
  const files = data.pages
    .flatMap((page) => page.files ?? [])
    .filter((file) => !seen.has(file.id) && Boolean(seen.add(file.id)));
  const { next: _first, ...about } = first;
  const next = data.pages.at(-1)?.next;
  return { ...about, files, ...(next ? { next } : {}) };
}

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

/** The pages of an entity's files, as `entityFilesQuery` caches them. */
type FilePages = InfiniteData<EntityFiles, string | undefined>;

/** A list's files changed, the rest of it as it was; a list the platform does not give stays so. */
const withFiles = (list: EntityFiles, change: (files: StoredFile[]) => StoredFile[]): EntityFiles =>
  list.files === null ? list : { ...list, files: change(list.files) };

/**
 * An entity's files as `entityFilesQuery` caches them (its pages), for the assets feature to show
 * changes in (lib/file-lists.ts). A change keeps the pages as they are: each file stays on its own.
 */
export function entityFileList(ref: EntityRef): FileList {
  const queryKey = entityKeys.files(ref);
  return {
    queryKey,
    files: (queryClient) =>
      queryClient.getQueryData<FilePages>(queryKey)?.pages.flatMap((page) => page.files ?? []) ?? [],
    changeFiles: (queryClient, change) =>
      queryClient.setQueryData<FilePages>(
        queryKey,
        (data) => data && { ...data, pages: data.pages.map((page) => withFiles(page, change)) },
      ),
  };
}

/** The files uploaded from this browser, as `uploadedHereQuery` caches them: `entityFileList`'s twin. */
export function uploadedHereList(ref: EntityRef): FileList {
  const queryKey = entityKeys.uploadedHere(ref);
  return {
    queryKey,
    files: (queryClient) => queryClient.getQueryData<EntityFiles>(queryKey)?.files ?? [],
    changeFiles: (queryClient, change) =>
      queryClient.setQueryData<EntityFiles>(queryKey, (data) => data && withFiles(data, change)),
  };
}
