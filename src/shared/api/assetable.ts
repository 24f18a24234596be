/**
 * The kinds of entity that own files (spec 2.3) and the users' roles (decisions.md). Plain constants,
 * apart from the zod schemas in me.ts, so the web app reads them without loading zod (performance.md W1).
 */
export const roles = ['investor', 'issuer', 'admin'] as const;
export type Role = (typeof roles)[number];

export const assetableTypes = [
  'User',
  'Product',
  'Investment',
  'Accreditation',
  'IndicationOfInterest',
  'TeamMember',
] as const;
export type AssetableType = (typeof assetableTypes)[number];
