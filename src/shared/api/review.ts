/**
 * The accreditation review on the wire (our extension; docs/decisions.md "Review and evidence").
 * Plain constants, apart from the zod schemas in accreditations.ts, so the web app reads them
 * without loading zod (performance.md W1).
 */

/**
 * Where an accreditation stands. `documents_needed` until its owner has uploaded what it requires
 * and pressed "Send for review" (then `pending`, in the admins' queue); a decision makes it
 * `approved` or `rejected`; a new upload after a decision puts it back to `documents_needed`.
 */
export const accreditationStatuses = ['documents_needed', 'pending', 'approved', 'rejected'] as const;
export type AccreditationStatus = (typeof accreditationStatuses)[number];

/** `GET /v2/core/accreditations?status=…`: a status, or `decided` for approved and rejected together. */
export const accreditationListStatuses = [...accreditationStatuses, 'decided'] as const;
export type AccreditationListStatus = (typeof accreditationListStatuses)[number];

/** Why an admin rejects: required with `status: "rejected"`; `other` requires a note. */
export const rejectionReasons = [
  'unreadable',
  'expired',
  'name_mismatch',
  'unsigned',
  'wrong_document',
  'other',
] as const;
export type RejectionReason = (typeof rejectionReasons)[number];

/**
 * What an accreditation needs before it can be sent for review, each met by files of the listed
 * types: a letter of accreditation or an executed letter (one of the two); a driver's licence, front
 * and back (two files, or one whose `meta.side` is `"both"`); a utility bill only when the owner says
 * the licence does not show the current address (`address_on_licence: false`).
 */
export const requirementKinds = ['accreditation_letter', 'drivers_license', 'utility_bill'] as const;
export type RequirementKind = (typeof requirementKinds)[number];

/** `meta.side` of a driver's licence photo: which side it shows. */
export const licenceSides = ['front', 'back', 'both'] as const;
export type LicenceSide = (typeof licenceSides)[number];

/**
 * What an entry of an accreditation's history records: the owner sending it for review
 * (`submitted`), a decision (`approved`, `rejected`, with the files it was made on), the return to
 * `documents_needed` when the owner uploads after a decision (`reopened`), the owner's answer about
 * the address on the licence (`address_changed`), and every change to its files.
 */
export const historyActions = [
  'submitted',
  'approved',
  'rejected',
  'reopened',
  'address_changed',
  'file_uploaded',
  'file_renamed',
  'file_made_private',
  'file_made_public',
  'file_cropped',
  'file_meta_changed',
  'file_deleted',
] as const;
export type HistoryAction = (typeof historyActions)[number];
