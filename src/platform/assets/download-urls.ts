import { hmac, safeEqual } from '../security/secrets';

export const variants = ['original', 'cropped', 'preview'] as const;
export type Variant = (typeof variants)[number];

export interface DownloadTarget {
  assetId: number;
  variant: Variant;
  width: number | null;
  /** Unix seconds. */
  expires: number;
}

export const deliveryPath = (assetId: number) => `/files/assets/${assetId}`;

const payload = (t: DownloadTarget, blobKey: string) =>
  `download:${t.assetId}:${blobKey}:${t.variant}:${t.width ?? ''}:${t.expires}`;

/**
 * An absolute, time-limited URL signed with HMAC-SHA256. The signature covers the asset id, its
 * stored blob, the variant, the width and the expiry, so changing any of them (or deleting the
 * asset) breaks it.
 */
export function signDownloadUrl(
  publicUrl: string,
  key: Buffer,
  target: DownloadTarget,
  blobKey: string,
): string {
  // The URL `new URL(deliveryPath(id), publicUrl)` with these search params would be, written as a
  // string: the values are a lowercase word, digits and base64url, which form encoding leaves as they
  // are, and building the URL object cost as much as the HMAC (download-urls.test.ts compares the two).
  const width = target.width === null ? '' : `&width=${target.width}`;
  const signature = hmac(key, payload(target, blobKey));
  return `${originOf(publicUrl)}${deliveryPath(target.assetId)}?variant=${target.variant}${width}&expires=${target.expires}&signature=${signature}`;
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
  blobKey: string,
  signature: string,
): boolean {
  return safeEqual(signature, hmac(key, payload(target, blobKey)));
}
