import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import type { Platform } from '../../../lib/platform/platform';

/** Every query key of this feature, from one hierarchy. */
export const offeringKeys = {
  all: ['offerings'] as const,
  list: () => [...offeringKeys.all, 'list'] as const,
  logo: (fileId: number, width: number) => [...offeringKeys.all, 'logo', fileId, width] as const,
};

/** The products the person may read, a page at a time ("Show more"). */
export const offeringsQuery = (platform: Platform) =>
  infiniteQueryOptions({
    queryKey: offeringKeys.list(),
    queryFn: ({ pageParam }) => platform.offerings(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.next,
    // A list people browse and come back to: fresh enough for a minute, so "Back" shows it at once.
    staleTime: 60_000,
  });

/** Download URLs live minutes (DOWNLOAD_URL_TTL, 5 by default, on our platform): ask again before. */
const addressLifetimeMs = 4 * 60_000;

/**
 * A signed address of a product's logo, small. The cropped rendition: the issuer's crop of the logo
 * (the whole image when there is none), which is what the product shows elsewhere. A platform without
 * renditions sends the original.
 */
export const logoAddressQuery = (platform: Platform, fileId: number, width: number) =>
  queryOptions({
    queryKey: offeringKeys.logo(fileId, width),
    queryFn: () => platform.address(fileId, { variant: 'cropped', width }),
    staleTime: addressLifetimeMs,
    gcTime: addressLifetimeMs,
    // No logo is better than a page of retries: the initial stands in for it.
    retry: false,
  });
