import { z } from 'zod';
import { problemSchema } from '../../shared/api/problem';

/**
 * `:id` of every route: plain decimal digits without a leading zero, so that one resource has one
 * URL (H5, U11: `0x10`, `1e1`, `+16`, `016`, ` 16` and `16.0` are 404, not asset 16). Fifteen digits
 * at most keep it a safe integer.
 */
export const idParams = z.object({
  id: z
    .string()
    .regex(/^[1-9][0-9]{0,14}$/)
    .transform(Number),
});

/** A route's error answers for its OpenAPI description: each status a problem+json body. */
export const problems = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, problemSchema]));
