import type { DB } from '../db/database';
import { clientById, insertClient } from '../db/repositories/oauth';
import type { OAuthClient } from '../db/schema';
import { randomToken, safeEqual, sha256 } from '../security/secrets';

export interface NewClient {
  name: string;
  redirectUris: string[];
  clientId?: string;
}

/** Registers an OAuth client; the secret is returned once and only its hash is kept. */
export async function createClient(db: DB, input: NewClient, now = Date.now()) {
  for (const uri of input.redirectUris) assertRedirectUri(uri);
  const clientId = input.clientId ?? randomToken(16);
  const clientSecret = randomToken(32);
  await insertClient(db, {
    clientId,
    name: input.name,
    secretHash: sha256(clientSecret),
    redirectUris: input.redirectUris,
    createdAt: now,
  });
  return { client_id: clientId, client_secret: clientSecret };
}

/** Redirect URIs must be absolute http(s) URLs without a fragment (RFC 6749 3.1.2). */
export function assertRedirectUri(uri: string) {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new Error(`Redirect URI is not an absolute URL: ${uri}`);
  }
  if (!['http:', 'https:'].includes(url.protocol)) throw new Error(`Redirect URI must be http(s): ${uri}`);
  if (url.hash || uri.includes('#')) throw new Error(`Redirect URI must not have a fragment: ${uri}`);
}

export const findClient = clientById;

export const redirectUrisOf = (client: OAuthClient): string[] => JSON.parse(client.redirect_uris) as string[];

export const secretMatches = (client: OAuthClient, secret: string) =>
  safeEqual(sha256(secret), client.secret_hash);
