import { createDeferredActions } from '../../lib/deferred-actions';
import type { StoredFile } from '../../lib/platform/model';

/** Deletes in their undo window (the spec has no undelete): "Deleted — Undo" on any platform. */
export const waitingDeletes = createDeferredActions<StoredFile>();

export const deleteKey = (fileId: number) => `file:${fileId}`;
