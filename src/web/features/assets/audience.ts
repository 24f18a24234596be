import type { AssetableType } from '../../../shared/api/assetable';

/** Offering material: every signed-in user may read these entities' non-private files (decisions.md). */
const offering = new Set<AssetableType>(['Product', 'Investment', 'TeamMember']);

/**
 * Whether "private" changes who can see a file here. On a profile, an accreditation or an indication
 * of interest only the owner and the platform's admins see the files anyway (decisions.md), so a
 * switch there would change nothing a person can notice, and is not offered.
 */
export const privacyMatters = (type: AssetableType): boolean => offering.has(type);

/** Who can see a file, in plain words; `owner` is whether that is the reader. */
export function audienceOf(type: AssetableType, isPrivate: boolean, owner = true): string {
  const theOwner = owner ? 'you' : 'the owner';
  if (isPrivate) return `Only ${theOwner} and the platform’s admins can see this file.`;
  if (offering.has(type)) return 'Everyone signed in to the platform can see this file.';
  return `Only ${theOwner} and the platform’s admins can see files here.`;
}
