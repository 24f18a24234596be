/**
 * Lists of our extensions are paged with `?cursor=…&limit=…` and answer `next_cursor` (null on the
 * last page). A cursor is opaque: pass back the one the list gave. A limit above the maximum is
 * taken as the maximum (as Google's AIP-158 does), so a client may always ask for `maxPageSize`.
 */
export const defaultPageSize = 20;
export const maxPageSize = 100;
