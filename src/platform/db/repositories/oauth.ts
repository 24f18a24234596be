import type { DB } from '../database';
import type { OAuthClient } from '../schema';

/**
 * Every query of the OAuth aggregate: clients, sign-in sessions, consents, authorization codes and
 * the grants (token families) with their access and refresh tokens. Codes and tokens arrive hashed:
 * nothing here sees a secret. Functions that take part in a transaction take it as `db`.
 */

// Clients

export async function insertClient(
  db: DB,
  client: { clientId: string; name: string; secretHash: string; redirectUris: string[]; createdAt: number },
) {
  await db
    .insertInto('oauth_clients')
    .values({
      client_id: client.clientId,
      name: client.name,
      secret_hash: client.secretHash,
      redirect_uris: JSON.stringify(client.redirectUris),
      created_at: client.createdAt,
    })
    .execute();
}

export function clientById(db: DB, clientId: string): Promise<OAuthClient | undefined> {
  return db.selectFrom('oauth_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
}

// Sign-in sessions of the sign-in service (not API tokens)

export function sessionUser(db: DB, tokenHash: string, now: number) {
  return db
    .selectFrom('sessions')
    .innerJoin('users', 'users.id', 'sessions.user_id')
    .select(['users.id', 'users.email', 'users.role'])
    .where('sessions.token_hash', '=', tokenHash)
    .where('sessions.expires_at', '>', now)
    .executeTakeFirst();
}

/** A new session in place of the browser's previous one (if any); expired sessions go meanwhile. */
export async function replaceSession(
  db: DB,
  session: { tokenHash: string; previousHash?: string; userId: number; now: number; expiresAt: number },
) {
  await db.deleteFrom('sessions').where('expires_at', '<=', session.now).execute();
  if (session.previousHash)
    await db.deleteFrom('sessions').where('token_hash', '=', session.previousHash).execute();
  await db
    .insertInto('sessions')
    .values({
      token_hash: session.tokenHash,
      user_id: session.userId,
      created_at: session.now,
      expires_at: session.expiresAt,
    })
    .execute();
}

// Consents

export async function hasConsent(db: DB, userId: number, clientId: string, scope: string) {
  const row = await db
    .selectFrom('consents')
    .select('user_id')
    .where('user_id', '=', userId)
    .where('client_id', '=', clientId)
    .where('scope', '=', scope)
    .executeTakeFirst();
  return row !== undefined;
}

export async function recordConsent(db: DB, userId: number, clientId: string, scope: string, at: number) {
  await db
    .insertInto('consents')
    .values({ user_id: userId, client_id: clientId, scope, created_at: at })
    .onConflict((oc) => oc.doNothing())
    .execute();
}

// Authorization codes

export async function insertCode(
  db: DB,
  code: {
    codeHash: string;
    clientId: string;
    userId: number;
    redirectUri: string;
    scope: string;
    state: string;
    codeChallenge: string | null;
    createdAt: number;
    expiresAt: number;
  },
) {
  await db
    .insertInto('authorization_codes')
    .values({
      code_hash: code.codeHash,
      client_id: code.clientId,
      user_id: code.userId,
      redirect_uri: code.redirectUri,
      scope: code.scope,
      state: code.state,
      code_challenge: code.codeChallenge,
      created_at: code.createdAt,
      expires_at: code.expiresAt,
    })
    .execute();
}

export function codeByHash(db: DB, codeHash: string) {
  return db
    .selectFrom('authorization_codes')
    .selectAll()
    .where('code_hash', '=', codeHash)
    .executeTakeFirst();
}

/**
 * Marks a code used, if nobody did before: answers whether this call did. A conditional UPDATE, so
 * that of concurrent redemptions exactly one wins on either engine (T4).
 */
export async function claimCode(db: DB, codeId: number, now: number): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('authorization_codes')
    .set({ used_at: now })
    .where('id', '=', codeId)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

// Grants (token families) and their tokens

export async function grantIdsOfCode(db: DB, codeId: number): Promise<number[]> {
  const rows = await db
    .selectFrom('grants')
    .select('id')
    .where('authorization_code_id', '=', codeId)
    .execute();
  return rows.map((row) => row.id);
}

export async function insertGrant(
  db: DB,
  grant: {
    clientId: string;
    userId: number;
    scope: string;
    codeId: number;
    createdAt: number;
    expiresAt: number;
  },
): Promise<number> {
  const { id } = await db
    .insertInto('grants')
    .values({
      client_id: grant.clientId,
      user_id: grant.userId,
      scope: grant.scope,
      authorization_code_id: grant.codeId,
      created_at: grant.createdAt,
      expires_at: grant.expiresAt,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return id;
}

export async function insertTokenPair(
  db: DB,
  tokens: {
    grantId: number;
    scope: string;
    accessHash: string;
    refreshHash: string;
    now: number;
    accessExpiresAt: number;
  },
) {
  await db
    .insertInto('access_tokens')
    .values({
      token_hash: tokens.accessHash,
      grant_id: tokens.grantId,
      scope: tokens.scope,
      created_at: tokens.now,
      expires_at: tokens.accessExpiresAt,
    })
    .execute();
  await db
    .insertInto('refresh_tokens')
    .values({ token_hash: tokens.refreshHash, grant_id: tokens.grantId, created_at: tokens.now })
    .execute();
}

export async function markGrantRevoked(db: DB, grantId: number, now: number) {
  await db
    .updateTable('grants')
    .set({ revoked_at: now })
    .where('id', '=', grantId)
    .where('revoked_at', 'is', null)
    .execute();
}

/** A refresh token with the grant it belongs to, for the refresh grant and revocation. */
export function refreshTokenWithGrant(db: DB, tokenHash: string) {
  return db
    .selectFrom('refresh_tokens')
    .innerJoin('grants', 'grants.id', 'refresh_tokens.grant_id')
    .select([
      'refresh_tokens.token_hash',
      'refresh_tokens.rotated_at',
      'grants.id as grant_id',
      'grants.client_id',
      'grants.scope',
      'grants.expires_at',
      'grants.revoked_at',
    ])
    .where('refresh_tokens.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** Marks a refresh token rotated, if it was not yet: answers whether this call did (R1). */
export async function rotateRefreshToken(db: DB, tokenHash: string, now: number): Promise<boolean> {
  const { numUpdatedRows } = await db
    .updateTable('refresh_tokens')
    .set({ rotated_at: now })
    .where('token_hash', '=', tokenHash)
    .where('rotated_at', 'is', null)
    .executeTakeFirst();
  return numUpdatedRows > 0n;
}

/** Revokes an access token of this client's (RFC 7009); another client's or an unknown one: nothing. */
export async function revokeAccessTokenOfClient(db: DB, tokenHash: string, clientId: string, now: number) {
  await db
    .updateTable('access_tokens')
    .set({ revoked_at: now })
    .where('token_hash', '=', tokenHash)
    .where('revoked_at', 'is', null)
    .where('grant_id', 'in', (qb) => qb.selectFrom('grants').select('id').where('client_id', '=', clientId))
    .execute();
}

/** Who an access token speaks for, while it and its grant are alive: the API's bearer check. */
export function accessTokenCaller(db: DB, tokenHash: string, now: number) {
  return db
    .selectFrom('access_tokens')
    .innerJoin('grants', 'grants.id', 'access_tokens.grant_id')
    .innerJoin('users', 'users.id', 'grants.user_id')
    .select([
      'users.id as userId',
      'users.role',
      'access_tokens.scope',
      'access_tokens.expires_at',
      'grants.id as grantId',
    ])
    .where('access_tokens.token_hash', '=', tokenHash)
    .where('access_tokens.expires_at', '>', now)
    .where('access_tokens.revoked_at', 'is', null)
    .where('grants.revoked_at', 'is', null)
    .executeTakeFirst();
}
