import type { AssetableType } from './assetable';

/**
 * How each assetable type appears in the API (decisions.md "entity sideloads and links"):
 * `GET /v2/core/<plural>/:id` answers `{ "<singular>": {...}, "assets": [...] }`.
 */
export const entityPaths: Record<AssetableType, { plural: string; singular: string }> = {
  User: { plural: 'users', singular: 'user' },
  Product: { plural: 'products', singular: 'product' },
  Investment: { plural: 'investments', singular: 'investment' },
  Accreditation: { plural: 'accreditations', singular: 'accreditation' },
  IndicationOfInterest: { plural: 'indications_of_interest', singular: 'indication_of_interest' },
  TeamMember: { plural: 'team_members', singular: 'team_member' },
};

export const entityPath = (type: AssetableType, id: number) => `/v2/core/${entityPaths[type].plural}/${id}`;
