import type { AssetableType } from '../api/assetable';
import { fileTypesFor, type FileTypeInfo } from '../assets/file-types';

/**
 * How each assetable type appears in the web app: its address and its names for people. Shared, because
 * the proxy paints an entity page's outline before the app has loaded (src/proxy/index-page.ts).
 */
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

/**
 * The entity an address's two segments name (`/products/7`: router.tsx's `:kind/:id`), or null when
 * they name none: an unknown kind, or an id that is not a whole number above zero.
 */
export function entityOf(slug: string, id: string): { kind: EntityKind; id: number } | null {
  const kind = kindOfSlug(slug);
  const number = Number(id);
  if (!kind || !/^\d+$/.test(id) || !Number.isSafeInteger(number) || number <= 0) return null;
  return { kind, id: number };
}

/** The entity page at `pathname`, if it is one (read before the router has started). */
export function entityAt(pathname: string): { kind: EntityKind; id: number } | null {
  const segments = /^\/([^/]+)\/([^/]+)\/?$/.exec(pathname);
  return segments ? entityOf(segments[1]!, segments[2]!) : null;
}

/**
 * The slot an entity page's outline shows while the entity loads (painted by the proxy, then drawn by
 * the app): the first, whose description is most of what a phone shows of the page at first. None on
 * an accreditation: its review comes above its slots and would push the slot down when it came.
 */
export function outlineSlot(type: AssetableType): FileTypeInfo | undefined {
  return type === 'Accreditation' ? undefined : fileTypesFor(type)[0];
}

/**
 * Kinds whose page names related entities (a product's investments and team members, the product
 * of either) on a line under the title. The line is drawn even while empty or loading, in the
 * painted outline too, so the slots below it stay where the outline put them.
 */
export const hasRelatedLine = (type: AssetableType): boolean =>
  type === 'Product' || type === 'Investment' || type === 'TeamMember';
