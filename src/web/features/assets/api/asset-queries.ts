import { queryOptions, useMutation, useQueryClient } from '@tanstack/react-query';
import { forgetUploads } from '../../../lib/browser-memory';
import type { FileList } from '../../../lib/file-lists';
import { ApiError, messageOf, NotReadyYet } from '../../../lib/platform/errors';
import type { FileAddress, FileChanges, StoredFile, Variant } from '../../../lib/platform/model';
import type { Platform } from '../../../lib/platform/platform';
import { cropOf } from '../../../../shared/assets/crop';
import { useServices } from '../../../lib/services';
import { goneElsewhere } from '../gone-elsewhere';
import { deleteKey, type FileToDelete, waitingDeletes } from '../pending-deletes';

/** Every query key of this feature, from one hierarchy. */
export const assetKeys = {
  all: ['assets'] as const,
  address: (id: number, variant: Variant, width: number | undefined, version: string) =>
    [...assetKeys.all, id, 'address', variant, width ?? 'full', version] as const,
};

/** Download URLs live minutes (DOWNLOAD_URL_TTL, 5 by default, on our platform): ask again before. */
const addressLifetimeMs = 4 * 60_000;

/**
 * A signed address for showing a file. `version` changes when the file's look changes (a new crop), so
 * the browser never shows a stale rendition from its cache.
 */
export const addressQuery = (
  platform: Platform,
  file: { id: number; version: string },
  variant: Variant,
  width?: number,
) =>
  queryOptions({
    queryKey: assetKeys.address(file.id, variant, width, file.version),
    queryFn: () => platform.address(file.id, { variant, width }),
    staleTime: addressLifetimeMs,
    gcTime: addressLifetimeMs,
  });

/** A preview's address, or word that its file (a PDF's thumbnail) is still being made. */
export type PreviewAddress = FileAddress | { pending: true; retryAfterMs: number };

/** Asking again for a preview still being made: after Retry-After, then less and less often. */
const pendingBackoffMs = (retryAfterMs: number, answers: number) =>
  Math.min(30_000, Math.max(retryAfterMs, 1000 * 1.5 ** Math.max(0, answers - 1)));

/**
 * The address of a card's preview. A thumbnail still being made (after its PDF's upload was
 * answered) is not an error: the card shows the file's type, and the query asks again with backoff
 * until the thumbnail is ready (or gone: the card then keeps the type).
 */
export const previewAddressQuery = (
  platform: Platform,
  file: { id: number; version: string },
  variant: Variant,
  width?: number,
) =>
  queryOptions({
    queryKey: [...assetKeys.address(file.id, variant, width, file.version), 'preview'] as const,
    queryFn: async (): Promise<PreviewAddress> => {
      try {
        return await platform.address(file.id, { variant, width });
      } catch (error) {
        if (error instanceof NotReadyYet) return { pending: true, retryAfterMs: error.retryAfterMs };
        throw error;
      }
    },
    staleTime: (query) => ('pending' in (query.state.data ?? {}) ? 0 : addressLifetimeMs),
    gcTime: addressLifetimeMs,
    refetchInterval: (query) => {
      const data = query.state.data;
      return data && 'pending' in data
        ? pendingBackoffMs(data.retryAfterMs, query.state.dataUpdateCount)
        : false;
    },
  });

/** The changes as the list shows them at once, before the platform answers. */
function applied(file: StoredFile, changes: FileChanges): StoredFile {
  const next = { ...file, ...changes };
  if (!changes.meta) return next;
  const crop = cropOf(changes.meta);
  const { crop: _old, ...rest } = next;
  // The version stays until the platform has the new crop: an address asked for now would be signed
  // for the old look and end when the change lands (H2). A preview the browser crops shows it at once.
  return { ...rest, ...(crop ? { crop } : {}) };
}

/** The list with one file made anew. */
const replaceIn = (id: number, make: (file: StoredFile) => StoredFile) => (files: StoredFile[]) =>
  files.map((f) => (f.id === id ? make(f) : f));

/** The list without one file. */
const without = (id: number) => (files: StoredFile[]) => files.filter((f) => f.id !== id);

/**
 * Rename, privacy and crop: shown at once in the list's cached data, rolled back if the platform
 * refuses (TanStack Query "optimistic updates"), and the list read again once the platform has answered,
 * so the page never keeps a guess: a change the platform made though its answer was lost, or made
 * otherwise than shown. `list` is the cached list that shows the file. A platform that answers an update
 * without the file (204) is not refused: the adapter reads the file back (C2).
 */
export function useUpdateFile(list: FileList, fileId?: number) {
  const { platform } = useServices();
  const queryClient = useQueryClient();
  const leaveList = useLeaveList(list);
  const mutationKey = [...fileChangesKey, ...list.queryKey];
  return useMutation({
    mutationKey,
    // One file's changes go to the platform one after another (each still shows at once): a second
    // change made while the first is on its way (renamed, then made private at once) is sent with the
    // version the first one's answer gave, not the one both started from, which the platform would
    // refuse as changed elsewhere (412).
    scope: fileId === undefined ? undefined : { id: `file-changes-${fileId}` },
    mutationFn: ({ file, changes }: { file: StoredFile; changes: FileChanges }) => {
      const latest = list.files(queryClient).find((f) => f.id === file.id);
      return platform.update({ ...file, etag: latest?.etag ?? file.etag }, changes);
    },
    onMutate: async ({ file, changes }) => {
      await queryClient.cancelQueries({ queryKey: list.queryKey });
      const before = queryClient.getQueryData(list.queryKey);
      list.changeFiles(
        queryClient,
        replaceIn(file.id, (f) => applied(f, changes)),
      );
      return { before };
    },
    onError: async (error, { file }, context) => {
      if (context?.before) queryClient.setQueryData(list.queryKey, context.before);
      if (!(error instanceof ApiError)) return;
      // Changed elsewhere (412): the card shows the file as it is now, and offers the change again.
      if (error.status === 412) {
        const current = await platform.file(file.id).catch(() => undefined);
        if (current)
          list.changeFiles(
            queryClient,
            replaceIn(file.id, () => current),
          );
        else if (current === null) leaveList(file);
      }
      if (error.status === 404) leaveList(file);
    },
    onSuccess: (stored, { file }) => {
      // Made, but not read back: the optimistic state stays until the list is read again (on settling).
      if (stored)
        list.changeFiles(
          queryClient,
          replaceIn(file.id, () => stored),
        );
    },
    onSettled: () => {
      // With other changes to the list still under way, the last to settle reads it: a read now would
      // bring back, for a moment, what they show before the platform has answered them.
      if (queryClient.isMutating({ mutationKey }) === 1)
        void queryClient.invalidateQueries({ queryKey: list.queryKey });
    },
  });
}

/** The mutation keys of changes to files, followed by the key of the list that shows them. */
const fileChangesKey = ['file-changes'] as const;

/**
 * Undo of a replace: the replacement is removed at once and the file it replaced, whose delete was
 * still waiting, stays in use. If the replacement cannot be removed, both stay and the older one is
 * listed apart as not used.
 */
export function useUndoReplace(list: FileList) {
  const { platform } = useServices();
  const queryClient = useQueryClient();
  return async (file: FileToDelete): Promise<string | null> => {
    waitingDeletes.undo(deleteKey(file.id));
    if (!file.replacedBy) return null;
    try {
      await platform.remove(file.replacedBy);
      forgetUploads([file.replacedBy.id]);
      return null;
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return null;
      return `${file.replacedBy.name} could not be removed, so it stays in use: ${messageOf(error)}`;
    } finally {
      await queryClient.invalidateQueries({ queryKey: list.queryKey });
    }
  };
}

/**
 * A file found deleted elsewhere (404): out of the list now, with a notice in its slot
 * (gone-elsewhere.ts) rather than a card that can no longer do anything.
 */
export function useLeaveList(list: FileList) {
  const queryClient = useQueryClient();
  return (file: StoredFile) => {
    goneElsewhere.add(file);
    forgetUploads([file.id]);
    list.changeFiles(queryClient, without(file.id));
  };
}

/**
 * Delete with undo: the file leaves the list at once, and the platform is asked only once the undo
 * window has passed (lib/deferred-actions.ts). A refusal brings the file back with the platform's reason.
 * Either way the list is read again once the platform has answered, so it shows what the platform has.
 */
export function useDeleteLater(list: FileList, onForbidden: () => void) {
  const { platform } = useServices();
  const queryClient = useQueryClient();
  return (file: FileToDelete) =>
    waitingDeletes.later(deleteKey(file.id), file, async ({ leavingPage }) => {
      try {
        await platform.remove(file, { keepalive: leavingPage });
      } catch (error) {
        if (error instanceof ApiError && error.status === 403) onForbidden();
        // Already gone is what was wanted.
        if (!(error instanceof ApiError && error.status === 404)) {
          // Kept (as evidence of a decision: 409 `retained`), or changed meanwhile: the list read
          // again shows the file as the platform has it.
          void queryClient.invalidateQueries({ queryKey: list.queryKey });
          throw new Error(
            file.replacedBy
              ? `The new file is in place, but ${file.name} could not be removed: ${messageOf(error)}`
              : `${file.name} was not deleted: ${messageOf(error)}`,
          );
        }
      }
      forgetUploads([file.id]);
      list.changeFiles(queryClient, without(file.id));
      await queryClient.invalidateQueries({ queryKey: list.queryKey });
    });
}
