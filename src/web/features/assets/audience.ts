import type { AssetableType } from '../../../shared/api/me';

/** Offering material: every signed-in user may read these entities' non-private files (decisions.md). */
const offering = new Set<AssetableType>(['Product', 'Investment', 'TeamMember']);

/** Who can see a file, in plain words, next to the private toggle; `owner` is whether that is the reader. */
export function audienceOf(type: AssetableType, isPrivate: boolean, owner = true): string {
  const theOwner = owner ? 'you' : 'the owner';
  if (isPrivate) return `Only ${theOwner} and the platform’s admins can see this file.`;
  if (offering.has(type)) return 'Everyone signed in to the platform can see this file.';
  return `Only ${theOwner} and the platform’s admins can see files here, private or not.`;
}
