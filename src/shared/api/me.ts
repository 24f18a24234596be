import { z } from 'zod';
import { assetableTypes, roles } from './assetable';

export { assetableTypes, roles, type AssetableType, type Role } from './assetable';

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
