import type { AssetRow } from '../db/schema';
import { cropOfRow, cropTag, type Variant } from '../media/rendition-request';
import { hmac, safeEqual } from '../security/secrets';

export interface DownloadTarget {
  assetId: number;
  variant: Variant;
  width: number | null;
  /** Unix seconds. */
  expires: number;
  /**
   * `attachment`: delivered with `Content-Disposition: attachment` whatever the type, so that a
   * browser saves an image or a PDF rather than showing it (the web app's Download). Signed like the
   * rest, though it grants nothing: a URL says exactly what its answer is.
   */
  disposition?: 'attachment';
}

export const deliveryPath = (assetId: number) => `/files/assets/${assetId}`;

/**
 * What a URL is bound to besides its target (H2): the stored bytes (a delete ends them), the
 * privacy and, for `cropped`, the crop. Delivery recomputes it from the row it reads anyway, so a
 * change to any of them ends every URL issued before, at once and at no extra cost. A rename or any
 * other meta change leaves URLs working on purpose: a name grants no access, and what the bytes show
 * does not change.
 */
export function urlState(row: Pick<AssetRow, 'blob_key' | 'private' | 'meta'>, variant: Variant): string {
  const crop = variant === 'cropped' ? cropTag(cropOfRow(row)) : '';
  return `${row.blob_key}:${row.private}:${crop}`;
}

// `:attachment` only when asked for: every other URL is signed over the very string it always was.
const payload = (t: DownloadTarget, state: string) =>
  `download:${t.assetId}:${t.variant}:${t.width ?? ''}:${t.expires}:${state}${t.disposition ? `:${t.disposition}` : ''}`;

/**
 * An absolute, time-limited URL signed with HMAC-SHA256. The signature covers the asset id, the
 * variant, the width, the expiry and the asset's `urlState`, so changing any of them breaks it.
 */
export function signDownloadUrl(
  publicUrl: string,
  key: Buffer,
  target: DownloadTarget,
  state: string,
): string {
  // The URL `new URL(deliveryPath(id), publicUrl)` with these search params would be, written as a
  // string: the values are a lowercase word, digits and base64url, which form encoding leaves as they
  // are, and building the URL object cost as much as the HMAC (download-urls.test.ts compares the two).
  const width = target.width === null ? '' : `&width=${target.width}`;
  const disposition = target.disposition ? `&disposition=${target.disposition}` : '';
  const signature = hmac(key, payload(target, state));
  return `${originOf(publicUrl)}${deliveryPath(target.assetId)}?variant=${target.variant}${width}${disposition}&expires=${target.expires}&signature=${signature}`;
}

/** What an absolute path resolves against: the public URL's scheme, host and port (its path is replaced). */
const origins = new Map<string, string>();
function originOf(publicUrl: string): string {
  let origin = origins.get(publicUrl);
  if (origin === undefined) {
    origin = new URL('/', publicUrl).href.slice(0, -1);
    origins.set(publicUrl, origin);
  }
  return origin;
}

export function signatureMatches(
  key: Buffer,
  target: DownloadTarget,
  state: string,
  signature: string,
): boolean {
  return safeEqual(signature, hmac(key, payload(target, state)));
}
