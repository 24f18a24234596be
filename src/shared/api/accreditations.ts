import { z } from 'zod';
import { assetSchema } from '../assets/asset';
import { roles } from './assetable';
import { accreditationStatuses, historyActions } from './review';

const idSchema = z.number().int();
const person = z.object({ id: idSchema, name: z.string() });

/**
 * An Accreditation as our platform answers it: in `GET /v2/core/accreditations/:id` (to its owner and
 * admins), in the admins' list and in a decision's answer. `review_note`, `reviewed_at` and
 * `reviewed_by` are the current decision: all null while pending (a rejection answered by an upload
 * lives on in the history). `etag` is what `If-Match` on a decision compares.
 */
export const accreditationSchema = z.object({
  id: idSchema,
  name: z.string(),
  status: z.enum(accreditationStatuses),
  review_note: z.string().nullable(),
  reviewed_at: z.string().nullable(),
  reviewed_by: person.nullable(),
  owner: person.extend({ email: z.string() }),
  etag: z.string(),
  links: z.object({ assets: z.string(), history: z.string() }),
});
export type ApiAccreditation = z.infer<typeof accreditationSchema>;

/** `GET /v2/core/accreditations?status=…` (admins): each with its documents, private ones included. */
export const accreditationListSchema = z.object({
  accreditations: z.array(accreditationSchema.extend({ assets: z.array(assetSchema) })),
  next_cursor: z.string().nullable(),
});

/**
 * One entry of `GET /v2/core/accreditations/:id/history`. `file` is the file as it was then (its
 * name after the change, `previous_name` for a rename); `asset_id` is null once the file is deleted.
 */
export const historyEntrySchema = z.object({
  id: idSchema,
  at: z.string(),
  action: z.enum(historyActions),
  actor: person.extend({ role: z.enum(roles) }),
  note: z.string().nullable(),
  file: z
    .object({
      asset_id: idSchema.nullable(),
      name: z.string(),
      previous_name: z.string().nullable(),
      file_type: z.string(),
    })
    .nullable(),
});
export type HistoryEntry = z.infer<typeof historyEntrySchema>;

export const historySchema = z.object({
  history: z.array(historyEntrySchema),
  next_cursor: z.string().nullable(),
});
