/**
 * Lists of our extensions are paged with `?cursor=…&limit=…` and answer `next_cursor` (null on the
 * last page). A cursor is opaque: pass back the one the list gave. A limit above the maximum is
 * taken as the maximum (as Google's AIP-158 does), so a client may always ask for the maximum.
 */
export interface PageSizes {
  /** Items per page when the request gives no `limit`. */
  default: number;
  max: number;
}

/** Products, accreditations to review, an accreditation's history. */
export const listPageSizes: PageSizes = { default: 20, max: 100 };

/**
 * An entity's assets (`links.assets`, and the first page sideloaded in the entity's read). Larger
 * pages: an entity page shows every file of every slot, and most entities have far fewer than 100.
 */
export const assetPageSizes: PageSizes = { default: 100, max: 500 };
