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

/**
 * The address of an entity's asset list (`links.assets`), narrowed to one file type when given. It
 * also names the list in its cursors: a cursor of another entity's list, or of the list narrowed
 * otherwise, is refused rather than silently starting somewhere else.
 */
export function assetListPath(entity: { type: AssetableType; id: number }, fileType?: string) {
  const path = `${entityPath(entity.type, entity.id)}/assets`;
  return fileType === undefined ? path : `${path}?file_type=${encodeURIComponent(fileType)}`;
}
