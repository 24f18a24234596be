import { STATUS_CODES } from 'node:http';
import { jsonSchemaTransform } from 'fastify-type-provider-zod';
import { problemSchema } from '../../shared/api/problem';

/**
 * fastify-type-provider-zod's transform, except that a response declared with the problem schema is
 * documented as `application/problem+json`, the media type errors.ts sends it with. Routes keep
 * declaring `404: problemSchema`; the answers themselves are not touched, only the document.
 */
export const openApiTransform: typeof jsonSchemaTransform = (input) => {
  const response = input.schema?.response as Record<string, unknown> | undefined;
  if (!response) return jsonSchemaTransform(input);
  const declared = Object.fromEntries(
    Object.entries(response).map(([status, schema]) => [
      status,
      schema === problemSchema
        ? {
            description: STATUS_CODES[Number(status)] ?? 'Error',
            content: { 'application/problem+json': { schema: problemSchema } },
          }
        : schema,
    ]),
  );
  return jsonSchemaTransform({ ...input, schema: { ...input.schema, response: declared } });
};
