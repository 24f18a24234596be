import type { ApiRequirement } from '../../shared/api/accreditations';
import type { RequirementKind } from '../../shared/api/review';

/** One of an accreditation's files, as far as its requirements look at it. */
export interface RequirementFile {
  file_type: string;
  meta: Record<string, unknown>;
}

interface Rule {
  kind: RequirementKind;
  fileTypes: string[];
  minFiles: number;
  /** Met by fewer files than `minFiles` when one of them says so (a photo of both sides). */
  enough?: (file: RequirementFile) => boolean;
}

const letter: Rule = {
  kind: 'accreditation_letter',
  fileTypes: ['letter_of_accreditation', 'executed_letter_of_accreditation'],
  minFiles: 1,
};
const licence: Rule = {
  kind: 'drivers_license',
  fileTypes: ['drivers_license'],
  minFiles: 2,
  enough: (file) => file.meta.side === 'both',
};
const utilityBill: Rule = { kind: 'utility_bill', fileTypes: ['utility_bill'], minFiles: 1 };

/**
 * What an accreditation needs before it can be sent for review (decisions.md "Review and
 * evidence"), and whether its files meet each: a letter (either kind), both sides of a driver's
 * licence, and a utility bill only when the owner says the licence does not show the current
 * address. `files` are its files (not thumbnails), private ones included.
 */
export function accreditationRequirements(
  addressOnLicence: boolean,
  files: readonly RequirementFile[],
): ApiRequirement[] {
  const rules = addressOnLicence ? [letter, licence] : [letter, licence, utilityBill];
  return rules.map((rule) => {
    const matching = files.filter((file) => rule.fileTypes.includes(file.file_type));
    return {
      kind: rule.kind,
      file_types: [...rule.fileTypes],
      min_files: rule.minFiles,
      met: matching.length >= rule.minFiles || (rule.enough !== undefined && matching.some(rule.enough)),
    };
  });
}
