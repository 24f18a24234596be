import { z } from 'zod';

export const roles = ['investor', 'issuer', 'admin'] as const;
export type Role = (typeof roles)[number];

export const assetableTypes = [
  'User',
  'Product',
  'Investment',
  'Accreditation',
  'IndicationOfInterest',
  'TeamMember',
] as const;
export type AssetableType = (typeof assetableTypes)[number];

/** `GET /v2/core/me`: the signed-in user and the entities they own (our addition, decisions.md). */
export const meSchema = z.object({
  user: z.object({
    id: z.number().int(),
    email: z.string(),
    name: z.string(),
    role: z.enum(roles),
  }),
  entities: z.array(
    z.object({
      type: z.enum(assetableTypes),
      id: z.number().int(),
      name: z.string(),
    }),
  ),
});

export type Me = z.infer<typeof meSchema>;
