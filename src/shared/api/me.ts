import { z } from 'zod';
import { assetableTypes, roles } from './assetable';
import { accreditationStatuses } from './review';

export { assetableTypes, roles, type AssetableType, type Role } from './assetable';

/**
 * `GET /v2/core/me`: the signed-in user and the entities they own (our addition, decisions.md). An
 * Accreditation also says where its review stands (`status`), so the investor's start page can show it
 * without reading each one; other entities have no status.
 */
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
      status: z.enum(accreditationStatuses).optional(),
    }),
  ),
});

export type Me = z.infer<typeof meSchema>;
