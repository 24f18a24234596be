import { z } from 'zod';

/** RFC 9457 problem details, as every API error of the platform is answered (decisions.md). */
export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  code: z.string(),
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

export type Problem = z.infer<typeof problemSchema>;
export type FieldError = NonNullable<Problem['errors']>[number];

/** RFC 6749 5.2 error body, as the token and revocation endpoints answer. */
export const oauthErrorSchema = z.object({
  error: z.string(),
  error_description: z.string().optional(),
});

export type OAuthErrorBody = z.infer<typeof oauthErrorSchema>;
