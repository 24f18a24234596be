import { json } from './answers';
import type { FileChanges, StoredFile } from './model';
import { ifMatch, type PlatformContext } from './platform-context';
import { readFileAnswer } from './read-shapes';

/** One stored file read, changed or removed, under If-Match where the platform allows it. */

/** One file; null when it is gone (or not the person's to see). */
export async function loadFile(context: PlatformContext, id: number): Promise<StoredFile | null> {
  const response = await context.http.send(`/v2/core/assets/${id}`);
  if (response.status === 404) return null;
  return readFileAnswer(await json(response), response.headers.get('ETag') ?? undefined) ?? null;
}

/** Rename, privacy, crop. Null: the change was made, but the file could not be read back. */
export async function updateFile(
  context: PlatformContext,
  target: Pick<StoredFile, 'id' | 'etag'>,
  changes: FileChanges,
): Promise<StoredFile | null> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...ifMatch(context, target) };
  const response = await context.http.send(`/v2/core/assets/${target.id}`, {
    method: 'PUT',
    headers,
    body: JSON.stringify({ asset: changes }),
  });
  const answer = readFileAnswer(await json(response), response.headers.get('ETag') ?? undefined);
  // The spec shows no answer to an update: 204, or 200 with something else, means read it back (C2).
  return answer ?? (await loadFile(context, target.id).catch(() => null));
}

/** `keepalive`: sent as the page closes, and outlives it. */
export async function removeFile(
  context: PlatformContext,
  target: Pick<StoredFile, 'id' | 'etag'>,
  options: { keepalive?: boolean } = {},
): Promise<void> {
  const init: RequestInit = { method: 'DELETE', headers: ifMatch(context, target) };
  if (options.keepalive) init.keepalive = true;
  await json(await context.http.send(`/v2/core/assets/${target.id}`, init));
}
