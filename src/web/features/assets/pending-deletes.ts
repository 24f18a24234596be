import { createDeferredActions } from '../../lib/deferred-actions';
import type { StoredFile } from '../../lib/platform/model';

/**
 * A file to delete: on its own ("Deleted deck.pdf — Undo"), or the one a replacement took the place
 * of in a one-file slot (`replacedBy`: "Replaced deck.pdf with deck-2.pdf — Undo", which removes the
 * replacement instead and puts the old file back in use).
 */
export type FileToDelete = StoredFile & { replacedBy?: StoredFile };

/** Deletes in their undo window (the spec has no undelete): "Deleted — Undo" on any platform. */
export const waitingDeletes = createDeferredActions<FileToDelete>();

export const deleteKey = (fileId: number) => `file:${fileId}`;
