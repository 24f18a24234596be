import type { AssetableType } from './assetable';

/**
 * What the proxy serves at `/app-config.json` and the web app reads at start, so that one build of the
 * app serves any platform. Never the client secret (P1).
 */
export interface AppConfig {
  /** The spec's `{base_url}` and `{auth_url}`. */
  platformBaseUrl: string;
  platformAuthUrl: string;
  /** Where the app sends API calls: the platform itself, or the proxy, which forwards `/v2/core/*`. */
  apiBaseUrl: string;
  clientId: string;
  scope: string;
  redirectUri: string;
  /** The proxy's own token and sign-out endpoints. */
  tokenEndpoint: string;
  revokeEndpoint: string;
  /** Where each kind of entity is read, relative to `apiBaseUrl`, with `:id`; null: not readable. */
  entityPaths: Record<AssetableType, string | null>;
  capabilities: Capabilities;
}

/**
 * What the platform offers beyond platform-api.md, as far as the proxy knows: `true` offered, `false`
 * not offered, `null` not known yet (the app tries, and a 404 or 405 tells it).
 */
export interface Capabilities {
  /** `GET /v2/core/me`: the user, their role and the entities they own. */
  me: boolean | null;
  /** `GET /v2/core/<plural>/:id` answers the entity and its files. */
  entityReads: boolean | null;
  /** `download_url?variant=…&width=…` answers a cropped or resized image. */
  renditions: boolean | null;
  /** The admins' review of accreditations. */
  review: boolean | null;
  /** An accreditation's history of decisions and file changes, readable by its owner and admins. */
  reviewHistory: boolean | null;
  /** `GET /v2/core/products`: the products (offerings) a person may read, paged. */
  offerings: boolean | null;
  /** The refresh grant, so a session outlives its first access token. */
  refreshGrant: boolean | null;
  /** RFC 7009 revocation, so signing out ends the session at the platform too. */
  revoke: boolean | null;
  /** The app may send `Idempotency-Key` on uploads (allowed by CORS, or forwarded by the proxy). */
  idempotencyKey: boolean | null;
  /** The app may send `If-Match` on changes. */
  ifMatch: boolean | null;
  /** tus resumable uploads at `/v2/core/uploads` (src/shared/api/resumable-uploads.ts). */
  resumableUploads: boolean | null;
}

export const capabilityNames = [
  'me',
  'entityReads',
  'renditions',
  'review',
  'reviewHistory',
  'offerings',
  'refreshGrant',
  'revoke',
  'idempotencyKey',
  'ifMatch',
  'resumableUploads',
] as const satisfies readonly (keyof Capabilities)[];

/** Nothing known: a platform that implements only the spec, until something says otherwise. */
export const unknownCapabilities: Capabilities = {
  me: null,
  entityReads: null,
  renditions: null,
  review: null,
  reviewHistory: null,
  offerings: null,
  refreshGrant: null,
  revoke: null,
  idempotencyKey: null,
  ifMatch: null,
  resumableUploads: null,
};
