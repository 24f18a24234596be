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
  const url = new URL(deliveryPath(target.assetId), publicUrl);
  url.searchParams.set('variant', target.variant);
  if (target.width !== null) url.searchParams.set('width', String(target.width));
  url.searchParams.set('expires', String(target.expires));
  url.searchParams.set('signature', hmac(key, payload(target, blobKey)));
  return url.toString();
}

export function signatureMatches(
  key: Buffer,
  target: DownloadTarget,
  blobKey: string,
  signature: string,
): boolean {
  return safeEqual(signature, hmac(key, payload(target, blobKey)));
}
