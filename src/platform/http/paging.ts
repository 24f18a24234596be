import { z } from 'zod';
import { listPageSizes, type PageSizes } from '../../shared/api/paging';
import { validationFailed } from './errors';

/**
 * `?cursor=…&limit=…` of a paged list (src/shared/api/paging.ts). The limit is plain decimal digits,
 * as ids are; above the maximum it is taken as the maximum.
 */
export function pageQueryOf(sizes: PageSizes) {
  return {
    cursor: z.string().max(200).optional().describe('Opaque: the next_cursor of the page before.'),
    limit: z
      .string()
      .regex(/^[1-9][0-9]{0,5}$/, 'must be a whole number from 1')
      .optional()
      .transform((limit) => (limit === undefined ? sizes.default : Math.min(Number(limit), sizes.max)))
      .describe(`Items per page: ${sizes.default} unless given, at most ${sizes.max}.`),
  };
}

/** The query of the lists paged by `listPageSizes`. */
export const pageQuery = pageQueryOf(listPageSizes);

/**
 * A cursor is where the last page ended: the list it belongs to and the sort key of its last item,
 * base64url-encoded. It grants nothing (a crafted one only moves the start of a list the caller
 * may read anyway), so it is not signed; one of another list, or not one at all, is a 422.
 */
export function encodeCursor(list: string, position: number[]): string {
  return Buffer.from(JSON.stringify([list, ...position])).toString('base64url');
}

export function decodeCursor(cursor: string | undefined, list: string, length: number) {
  if (cursor === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    Array.isArray(parsed) &&
    parsed.length === length + 1 &&
    parsed[0] === list &&
    parsed.slice(1).every((n) => Number.isSafeInteger(n))
  )
    return parsed.slice(1) as number[];
  throw validationFailed([
    { field: 'cursor', message: 'is not a cursor of this list; start again without one' },
  ]);
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Rows fetched with `limit + 1`: the extra one only says whether another page follows. */
export function pageOf<T>(rows: T[], limit: number, list: string, positionOf: (row: T) => number[]): Page<T> {
  if (rows.length <= limit) return { items: rows, nextCursor: null };
  const items = rows.slice(0, limit);
  return { items, nextCursor: encodeCursor(list, positionOf(items[items.length - 1]!)) };
}
