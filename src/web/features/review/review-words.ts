import { rejectionReasons } from '../../../shared/api/review';
import { labelOf } from '../../../shared/assets/file-types';
import type { RejectionReason, Requirement, ReviewStatus } from '../../lib/platform/model';

/** One word or three for where an accreditation stands, the same on every page (issue 28). */
export const statusWords: Record<ReviewStatus, string> = {
  documents_needed: 'Documents needed',
  pending: 'Waiting for review',
  approved: 'Approved',
  rejected: 'Rejected',
};

/** The reasons an admin chooses from, in the order shown. */
export const reasons = rejectionReasons;

/** What the admin reads beside each reason's radio. */
export const reasonLabels: Record<RejectionReason, string> = {
  unreadable: 'Unreadable or blurry',
  expired: 'Expired',
  name_mismatch: 'Name does not match',
  unsigned: 'Not signed',
  wrong_document: 'Wrong document',
  other: 'Other (say what in the note)',
};

/** What the investor reads: what was wrong, and what to do about it, in one sentence each. */
export const reasonAdvice: Record<RejectionReason, string> = {
  unreadable: 'A document could not be read. Upload a sharper photo or scan of it.',
  expired: 'A document has expired. Upload a current one.',
  name_mismatch: 'The name on a document does not match the name on your account. Upload one in your name.',
  unsigned: 'A document is not signed. Upload a signed copy of it.',
  wrong_document: 'A document is not the kind asked for. Upload the document its section asks for.',
  other: 'The reviewer explains what to change in the note below. Upload the corrected document.',
};

/** A requirement in words: what it takes ("A letter of accreditation or an executed letter …"). */
export function requirementLabel(requirement: Requirement): string {
  switch (requirement.kind) {
    case 'accreditation_letter':
      return `${requirement.fileTypes.map(labelOf).join(' or ')} (one of the two)`;
    case 'drivers_license':
      return "Driver's licence, front and back";
    case 'utility_bill':
      return 'Utility bill (your licence does not show your current address)';
  }
}

/**
 * What a slot of an accreditation says about itself: "One of these two" for the letters,
 * "Required" for what a requirement asks for, "Optional" otherwise (a utility bill while the
 * licence shows the address).
 */
export function slotNeed(requirements: Requirement[], fileType: string): string {
  const requirement = requirements.find((r) => r.fileTypes.includes(fileType));
  if (!requirement) return 'Optional';
  return requirement.fileTypes.length > 1 ? 'One of these two' : 'Required';
}
