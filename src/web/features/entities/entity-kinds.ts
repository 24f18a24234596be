import type { AssetableType } from '../../../shared/api/assetable';

/** How each assetable type appears in the app: its address and its names for people. */
export interface EntityKind {
  type: AssetableType;
  slug: string;
  singular: string;
  plural: string;
}

export const entityKinds: readonly EntityKind[] = [
  { type: 'User', slug: 'users', singular: 'Profile', plural: 'Profile' },
  { type: 'Product', slug: 'products', singular: 'Product', plural: 'Products' },
  { type: 'Investment', slug: 'investments', singular: 'Investment', plural: 'Investments' },
  { type: 'Accreditation', slug: 'accreditations', singular: 'Accreditation', plural: 'Accreditations' },
  {
    type: 'IndicationOfInterest',
    slug: 'indications-of-interest',
    singular: 'Indication of interest',
    plural: 'Indications of interest',
  },
  { type: 'TeamMember', slug: 'team-members', singular: 'Team member', plural: 'Team members' },
];

export const kindOfType = (type: AssetableType): EntityKind => entityKinds.find((k) => k.type === type)!;
export const kindOfSlug = (slug: string): EntityKind | undefined => entityKinds.find((k) => k.slug === slug);
export const entityHref = (type: AssetableType, id: number) => `/${kindOfType(type).slug}/${id}`;
