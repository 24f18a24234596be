import { json, retryAfterMs } from './answers';
import { ApiError, NotReadyYet } from './errors';
import type { FileAddress, Variant } from './model';
import { can, type PlatformContext } from './platform-context';

/** Signed addresses of a file (`download_url`): to show it, or to save it. */

/**
 * A signed address of the file; a rendition when the platform makes them and one is asked for.
 * Rejects with NotReadyYet while the file is still being made (a PDF's thumbnail after its upload).
 */
export async function fileAddress(
  context: PlatformContext,
  id: number,
  want?: { variant: Variant; width?: number },
): Promise<FileAddress> {
  const rendition = want !== undefined && want.variant !== 'original' && can(context).renditions === true;
  const query = new URLSearchParams();
  if (rendition) {
    query.set('variant', want.variant);
    if (want.width !== undefined) query.set('width', String(want.width));
  }
  const path = `/v2/core/assets/${id}/download_url${rendition ? `?${query}` : ''}`;
  const response = await context.http.send(path);
  if (response.status === 409) {
    const error = await ApiError.fromResponse(response.clone());
    if (error.code === 'thumbnail_pending') throw new NotReadyYet(retryAfterMs(response));
  }
  const url = signedUrl(await json(response));
  return { url, rendered: rendition || want === undefined || want.variant === 'original' };
}

/**
 * A signed address of the original for saving it: `saves` where the platform delivers it as an
 * attachment (ours: `disposition=attachment`), not where it may show it in the tab instead.
 */
export async function downloadAddress(
  context: PlatformContext,
  id: number,
): Promise<{ url: string; saves: boolean }> {
  // Asked only of a platform known to extend download_url (a spec-only one may refuse a parameter).
  const extended = can(context).renditions === true;
  const path = `/v2/core/assets/${id}/download_url${extended ? '?disposition=attachment' : ''}`;
  const url = signedUrl(await json(await context.http.send(path)));
  // The platform says so in the signed URL itself; one that ignored the parameter left it out.
  const saves = new URL(url).searchParams.get('disposition') === 'attachment';
  return { url, saves };
}

function signedUrl(body: unknown): string {
  const url = (body as { url?: unknown } | undefined)?.url;
  if (typeof url !== 'string') throw new Error('The platform gave no address for this file.');
  return url;
}
