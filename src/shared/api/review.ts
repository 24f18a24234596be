/**
 * The accreditation review on the wire (our extension; README "The platform's endpoints"). Plain
 * constants, apart from the zod schemas in accreditations.ts, so the web app reads them without
 * loading zod (performance.md W1).
 */
export const accreditationStatuses = ['pending', 'approved', 'rejected'] as const;
export type AccreditationStatus = (typeof accreditationStatuses)[number];

/** `GET /v2/core/accreditations?status=…`: a status, or `decided` for approved and rejected together. */
export const accreditationListStatuses = [...accreditationStatuses, 'decided'] as const;
export type AccreditationListStatus = (typeof accreditationListStatuses)[number];

/**
 * What an entry of an accreditation's history records: a decision (`approved`, `rejected`), the
 * return to `pending` when the owner answers a rejection with an upload (`reopened`), and every
 * change to its files.
 */
export const historyActions = [
  'approved',
  'rejected',
  'reopened',
  'file_uploaded',
  'file_renamed',
  'file_made_private',
  'file_made_public',
  'file_cropped',
  'file_meta_changed',
  'file_deleted',
] as const;
export type HistoryAction = (typeof historyActions)[number];
