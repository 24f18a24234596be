import type {
  FastifyBaseLogger,
  FastifyInstance,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { problemSchema } from '../../shared/api/problem';

/**
 * What `app.withTypeProvider<ZodTypeProvider>()` answers: routes typed by their zod schemas. Named so
 * that a route table can hand it to one function per route.
 */
export type ZodRoutes = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  ZodTypeProvider
>;

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

/**
 * For a route whose handler reads a part of the request itself rather than through its schema (a
 * multipart stream; RFC 6749's own error words; a redirect back to the client rather than an error
 * page): the schema still describes every part for the OpenAPI document, its description says why
 * the handler checks them, and only the parts named in `validates` are checked by the schema (the
 * `:id` of every route stays checked, H5). Spread into the route's options.
 */
export function readByHandler<S extends object>(
  schema: S,
  why: string,
  validates: ('params' | 'querystring' | 'headers')[] = [],
) {
  const checked = new Set<string>(validates);
  return {
    schema: {
      ...schema,
      description: [
        (schema as { description?: string }).description,
        `Checked by the handler, not by this schema: ${why}`,
      ]
        .filter(Boolean)
        .join(' '),
    },
    validatorCompiler: (route: { httpPart?: string; schema: unknown; method: string; url: string }) =>
      route.httpPart && checked.has(route.httpPart)
        ? validatorCompiler(route as Parameters<typeof validatorCompiler>[0])
        : (data: unknown) => ({ value: data }),
  };
}
