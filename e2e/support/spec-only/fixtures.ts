/**
 * What the spec-only platform knows from the start: the file types of spec 2.3 (transcribed once for
 * every platform double, in src/testing/spec-examples.ts), and a few fixed people with the entities
 * they own. Tests refer to these constants rather than to numbers.
 */
import { type SpecAssetableType, specAssetableTypes } from '../../../src/testing/spec-examples';

export { type SpecFileType, specFileTypes } from '../../../src/testing/spec-examples';

export type AssetableType = SpecAssetableType;

export const assetableTypes: readonly AssetableType[] = specAssetableTypes;

/** The password every fixed person has unless the `password` option says otherwise. */
export const specDefaultPassword = 'spec-password';

export const specPeople = {
  investor: 'investor@spec.test',
  issuer: 'issuer@spec.test',
  other: 'other@spec.test',
} as const;

export interface SpecEntity {
  type: AssetableType;
  id: number;
  name: string;
  /** Email of the one person who may read it and read and write its assets. */
  owner: string;
  /** Further attributes answered with the entity (snake_case, as on the wire). */
  attributes: Readonly<Record<string, string | number>>;
}

export const specEntities = {
  investorUser: {
    type: 'User',
    id: 1,
    name: 'Ivy Investor',
    owner: specPeople.investor,
    attributes: { email: specPeople.investor },
  },
  accreditation: {
    type: 'Accreditation',
    id: 1,
    name: 'Accreditation of Ivy Investor',
    owner: specPeople.investor,
    attributes: { user_id: 1 },
  },
  indicationOfInterest: {
    type: 'IndicationOfInterest',
    id: 1,
    name: 'Interest in Harbour Bakery',
    owner: specPeople.investor,
    attributes: { user_id: 1, product_id: 1 },
  },
  issuerUser: {
    type: 'User',
    id: 2,
    name: 'Isaac Issuer',
    owner: specPeople.issuer,
    attributes: { email: specPeople.issuer },
  },
  harbourBakery: { type: 'Product', id: 1, name: 'Harbour Bakery', owner: specPeople.issuer, attributes: {} },
  orchardCider: { type: 'Product', id: 2, name: 'Orchard Cider', owner: specPeople.issuer, attributes: {} },
  harbourBakeryInvestment: {
    type: 'Investment',
    id: 1,
    name: 'Harbour Bakery seed round',
    owner: specPeople.issuer,
    attributes: { product_id: 1 },
  },
  harbourBakeryTeamMember: {
    type: 'TeamMember',
    id: 1,
    name: 'Tessa Baker',
    owner: specPeople.issuer,
    attributes: { product_id: 1 },
  },
  otherUser: {
    type: 'User',
    id: 3,
    name: 'Olga Other',
    owner: specPeople.other,
    attributes: { email: specPeople.other },
  },
  otherProduct: {
    type: 'Product',
    id: 3,
    name: "Someone Else's Product",
    owner: specPeople.other,
    attributes: {},
  },
} as const satisfies Record<string, SpecEntity>;

/** How each assetable type appears on the wire: its path segment and its response key. */
export const entityRoutes: Readonly<Record<AssetableType, { plural: string; singular: string }>> = {
  User: { plural: 'users', singular: 'user' },
  Product: { plural: 'products', singular: 'product' },
  Investment: { plural: 'investments', singular: 'investment' },
  Accreditation: { plural: 'accreditations', singular: 'accreditation' },
  IndicationOfInterest: { plural: 'indications_of_interest', singular: 'indication_of_interest' },
  TeamMember: { plural: 'team_members', singular: 'team_member' },
};

export function findEntity(type: string, id: number): SpecEntity | undefined {
  return Object.values(specEntities).find((entity) => entity.type === type && entity.id === id);
}
