import { z } from 'zod';
import { assetSchema } from '../assets/asset';
import { roles } from './assetable';
import { accreditationStatuses, historyActions, rejectionReasons, requirementKinds } from './review';

const idSchema = z.number().int();
const person = z.object({ id: idSchema, name: z.string() });

/**
 * One thing an accreditation needs (see `requirementKinds`): met by `min_files` files of one of
 * `file_types` (a licence: two files, or one whose `meta.side` is "both"). The platform computes
 * it, so the app and the platform agree on what is missing.
 */
export const requirementSchema = z.object({
  kind: z.enum(requirementKinds),
  file_types: z.array(z.string()),
  min_files: z.number().int(),
  met: z.boolean(),
});
export type ApiRequirement = z.infer<typeof requirementSchema>;

/** A decision as recorded: who, when, what, and the files it was made on (kept as evidence). */
export const decisionSchema = z.object({
  status: z.enum(['approved', 'rejected']),
  reason: z.enum(rejectionReasons).nullable(),
  note: z.string().nullable(),
  at: z.string(),
  by: person,
  /** The history entry that records it. */
  history_id: idSchema,
  /** The ids of the files it was made on: retained, so they cannot be deleted or replaced. */
  file_ids: z.array(idSchema),
});
export type ApiDecision = z.infer<typeof decisionSchema>;

/**
 * An Accreditation as our platform answers it: in `GET /v2/core/accreditations/:id` (to its owner and
 * admins), in the admins' list and in a decision's answer. `review_note`, `review_reason`,
 * `reviewed_at` and `reviewed_by` are the current decision: all null unless approved or rejected.
 * `last_decision` is the newest decision whatever the status now (so the investor still reads why it
 * was rejected after uploading a new file, and the queue marks files added since as new).
 * `submitted_at` is when the owner last sent it for review ("waiting since"). `etag` is what
 * `If-Match` on a decision or a send compares.
 */
export const accreditationSchema = z.object({
  id: idSchema,
  name: z.string(),
  status: z.enum(accreditationStatuses),
  review_note: z.string().nullable(),
  review_reason: z.enum(rejectionReasons).nullable(),
  reviewed_at: z.string().nullable(),
  reviewed_by: person.nullable(),
  last_decision: decisionSchema.nullable(),
  submitted_at: z.string().nullable(),
  address_on_licence: z.boolean(),
  requirements: z.array(requirementSchema),
  owner: person.extend({ email: z.string() }),
  etag: z.string(),
  links: z.object({ assets: z.string(), history: z.string() }),
});
export type ApiAccreditation = z.infer<typeof accreditationSchema>;

/**
 * `GET /v2/core/accreditations?status=…&q=…` (admins): each with its documents, private ones
 * included. `pending` is ordered by `submitted_at`, oldest first. `q` matches the owner's name or
 * email (case-insensitive, any part). `counts` are per status over all accreditations (not only
 * those `q` matches), for the queue's "Waiting (N)" and "Decided (N)".
 */
export const accreditationListSchema = z.object({
  accreditations: z.array(accreditationSchema.extend({ assets: z.array(assetSchema) })),
  next_cursor: z.string().nullable(),
  counts: z.object({
    documents_needed: z.number().int(),
    pending: z.number().int(),
    approved: z.number().int(),
    rejected: z.number().int(),
  }),
});

/**
 * `PUT /v2/core/accreditations/:id` body. Admins decide: `status` approved or rejected; `reason` is
 * required with rejected (422 naming `accreditation.reason`), `note` is required when the reason is
 * `other` and optional otherwise. The owner sends for review (`status: "pending"`, 422 naming each
 * unmet requirement as `requirements.<kind>`) and answers `address_on_licence`; both may come in one
 * request. Honours `If-Match` (412).
 */
export const accreditationUpdateSchema = z.object({
  accreditation: z
    .object({
      status: z.enum(['pending', 'approved', 'rejected']).optional(),
      reason: z.enum(rejectionReasons).optional(),
      note: z.string().max(2000).optional(),
      address_on_licence: z.boolean().optional(),
    })
    .strict(),
});
export type AccreditationUpdate = z.infer<typeof accreditationUpdateSchema>['accreditation'];

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
  /** A rejection's reason. */
  reason: z.enum(rejectionReasons).nullable(),
  /**
   * A decision's evidence: the files it was made on, as they were (name and SHA-256 of the bytes).
   * Retained files cannot be deleted, so each `id` can be opened. Absent on other entries.
   */
  files: z
    .array(
      z.object({
        id: idSchema,
        name: z.string(),
        sha256: z.string(),
        file_type: z.string(),
        /** The photo check's issues on this file when the decision was made (issue 31); absent: not checked. */
        quality_issues: z.array(z.string()).optional(),
      }),
    )
    .optional(),
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
