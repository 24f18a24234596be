import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';
import type { AssetableType, Role } from '../../shared/api/me';
import type { AccreditationStatus, HistoryAction, RejectionReason } from '../../shared/api/review';

/**
 * Tables of the platform's database. Timestamps are integer milliseconds since the epoch;
 * secrets (passwords, client secrets, codes, tokens) are stored only as hashes.
 */
export interface Database {
  users: UsersTable;
  oauth_clients: OAuthClientsTable;
  sessions: SessionsTable;
  consents: ConsentsTable;
  authorization_codes: AuthorizationCodesTable;
  grants: GrantsTable;
  access_tokens: AccessTokensTable;
  refresh_tokens: RefreshTokensTable;
  products: ProductsTable;
  investments: InvestmentsTable;
  team_members: TeamMembersTable;
  accreditations: AccreditationsTable;
  indications_of_interest: IndicationsOfInterestTable;
  assets: AssetsTable;
  idempotency_keys: IdempotencyKeysTable;
  accreditation_history: AccreditationHistoryTable;
  accreditation_decision_files: AccreditationDecisionFilesTable;
  resumable_uploads: ResumableUploadsTable;
}

export interface UsersTable {
  id: Generated<number>;
  email: string;
  name: string;
  role: Role;
  password_hash: string;
  created_at: number;
}
export type User = Selectable<UsersTable>;

export interface OAuthClientsTable {
  client_id: string;
  name: string;
  /** sha256 of the secret: secrets are 256 random bits, so a slow hash adds nothing but latency. */
  secret_hash: string;
  /** JSON array of registered redirect URIs, matched byte for byte. */
  redirect_uris: string;
  created_at: number;
}
export type OAuthClient = Selectable<OAuthClientsTable>;

/** Sign-in sessions of the sign-in service (cookie holds the token, the table its hash). */
export interface SessionsTable {
  token_hash: string;
  user_id: number;
  created_at: number;
  expires_at: number;
}

export interface ConsentsTable {
  user_id: number;
  client_id: string;
  scope: string;
  created_at: number;
}

export interface AuthorizationCodesTable {
  id: Generated<number>;
  code_hash: string;
  client_id: string;
  user_id: number;
  redirect_uri: string;
  scope: string;
  state: string;
  code_challenge: string | null;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}
export type AuthorizationCode = Selectable<AuthorizationCodesTable>;

/** One grant per redeemed code: the family of every access and refresh token issued from it. */
export interface GrantsTable {
  id: Generated<number>;
  client_id: string;
  user_id: number;
  scope: string;
  authorization_code_id: number;
  created_at: number;
  /** Absolute end of the refresh lifetime; rotation never extends it. */
  expires_at: number;
  revoked_at: number | null;
}
export type Grant = Selectable<GrantsTable>;

export interface AccessTokensTable {
  token_hash: string;
  grant_id: number;
  scope: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

export interface RefreshTokensTable {
  token_hash: string;
  grant_id: number;
  created_at: number;
  /** Set when this token was exchanged for a newer one; a second use then revokes the grant. */
  rotated_at: number | null;
}

export interface ProductsTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  created_at: number;
}
export interface InvestmentsTable {
  id: Generated<number>;
  product_id: number;
  owner_id: number;
  name: string;
  created_at: number;
}
export interface TeamMembersTable {
  id: Generated<number>;
  product_id: number;
  name: string;
  created_at: number;
}
export interface AccreditationsTable {
  id: Generated<number>;
  owner_id: number;
  name: string;
  status: AccreditationStatus;
  review_note: string | null;
  reviewed_by: number | null;
  reviewed_at: number | null;
  created_at: number;
  /** Bumped at every change of the review state; the accreditation's ETag. */
  version: Generated<number>;
  /** 1 unless the owner says the licence does not show the current address (then a utility bill is needed). */
  address_on_licence: Generated<number>;
  /** The current rejection's reason (null unless rejected). */
  review_reason: RejectionReason | null;
  /** When the owner last sent it for review (migration 0006: when it was opened, for older ones). */
  submitted_at: number | null;
}
export interface IndicationsOfInterestTable {
  id: Generated<number>;
  owner_id: number;
  product_id: number | null;
  name: string;
  created_at: number;
}

export type NewUser = Insertable<UsersTable>;

export interface AssetsTable {
  id: Generated<number>;
  name: string;
  file_type: string;
  assetable_type: AssetableType;
  assetable_id: number;
  /** Opaque key of the bytes in the blob store; never derived from user input. */
  blob_key: string;
  /** Sniffed from the bytes, never taken from the client. */
  content_type: string;
  size: number;
  sha256: string;
  /** Pixel size after EXIF orientation, for images. */
  width: number | null;
  height: number | null;
  /** JSON object. */
  meta: string;
  private: number;
  thumbnail_of: number | null;
  /**
   * 1 for a thumbnail whose PNG is not stored yet (migration 0004): `blob_key` is reserved and holds
   * nothing, `size` is 0 and `sha256` empty until it is made. Only thumbnails are ever pending.
   */
  pending: Generated<number>;
  /** Renders begun for a pending thumbnail (across restarts). */
  render_attempts: Generated<number>;
  /**
   * JSON `PhotoQuality` (src/shared/assets/photo-quality.ts) of a licence or bill image, measured at
   * upload (migration 0007); null for other files and when it could not be measured.
   */
  quality: ColumnType<string | null, string | null | undefined, string | null>;
  /** Bumped at every update; the ETag. */
  version: number;
  created_by: number;
  created_at: number;
  updated_at: number;
}
export type AssetRow = Selectable<AssetsTable>;

/** Create requests already answered, per user and Idempotency-Key (decisions.md: 24 hours). */
export interface IdempotencyKeysTable {
  user_id: number;
  key: string;
  /** Hash of the request's fields and file; null while the first request is still running. */
  request_hash: string | null;
  status: number | null;
  response: string | null;
  created_at: number;
}

/**
 * Every decision on an accreditation and every change to its files, append-only: no code updates or
 * deletes a row, and triggers refuse it in the database (migration 0003).
 */
/** A row of the history as written (its id and time filled in by the database where not given). */
export type NewAccreditationHistoryRow = Insertable<AccreditationHistoryTable>;

export interface AccreditationHistoryTable {
  id: Generated<number>;
  accreditation_id: number;
  at: number;
  actor_id: number;
  action: HistoryAction;
  /** The reviewer's note of a decision. */
  note: string | null;
  /** A rejection's reason. */
  reason?: RejectionReason | null;
  /** The file's id, name and type at the time (file actions only); the id outlives the file. */
  asset_id: number | null;
  file_name: string | null;
  /** A rename's name before. */
  file_previous_name: string | null;
  file_type: string | null;
}

/**
 * The files each decision was made on, as they were (migration 0006): append-only like the history,
 * and each asset named here cannot be deleted (a foreign key; the API answers 409 `retained`).
 */
export interface AccreditationDecisionFilesTable {
  history_id: number;
  accreditation_id: number;
  asset_id: number;
  name: string;
  sha256: string;
  file_type: string;
  /** The file's `quality.issues` when the decision was made, JSON (migration 0007); null: not checked. */
  quality_issues: ColumnType<string | null, string | null | undefined, never>;
}

/** A resumable (tus) upload (migration 0007): whose it is, what it becomes, and the asset once made. */
export interface ResumableUploadsTable {
  id: string;
  user_id: number;
  size: number;
  /** The checked create fields (file_type, assetable_type, assetable_id, name, meta, private), JSON. */
  fields: string;
  created_at: number;
  expires_at: number;
  asset_id: number | null;
}
export type ResumableUploadRow = Selectable<ResumableUploadsTable>;
