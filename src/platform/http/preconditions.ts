import { ApiError } from './errors';

/**
 * Whether an `If-Match` header fails against the resource's current ETag (RFC 9110 13.1.1): absent
 * passes; `*` or a list naming the current tag passes; anything else, weak tags included (If-Match
 * compares strongly), fails.
 */
export function ifMatchFails(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return !header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed === etag;
  });
}

export const preconditionFailed = (detail: string) => new ApiError(412, 'precondition_failed', detail);

/** 412 when `If-Match` names another version than the current one. */
export function checkIfMatch(header: string | undefined, etag: string, detail: string) {
  if (ifMatchFails(header, etag)) throw preconditionFailed(detail);
}
