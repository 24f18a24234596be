import type { QueryClient, QueryKey } from '@tanstack/react-query';
import type { StoredFile } from './platform/model';

/**
 * A list of files a page shows, as the feature that reads it keeps it in the query cache (the entities
 * feature: an entity's pages, or the files uploaded from this browser). The assets feature reads and
 * changes a list it shows through this alone (a change shown at once, a file taken out, the files the
 * viewer steps through), so it never depends on the shape of another feature's cached data.
 */
export interface FileList {
  /** The list's query: read again after a change; a read of it under way is cancelled before one. */
  readonly queryKey: QueryKey;
  /** The files the cached list holds now (none when nothing is cached). */
  files(queryClient: QueryClient): StoredFile[];
  /** The cached list with its files changed (on every page it has); the rest of what is cached stays. */
  changeFiles(queryClient: QueryClient, change: (files: StoredFile[]) => StoredFile[]): void;
}

/**
 * A list whose files are shown but never changed from their cards (the review queue's documents: its
 * cards cannot be edited), read again through `queryKey`. The viewer steps through none beside the one
 * opened.
 */
export function shownOnly(queryKey: QueryKey): FileList {
  return { queryKey, files: () => [], changeFiles: () => undefined };
}
