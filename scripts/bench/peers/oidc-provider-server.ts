/**
 * panva's oidc-provider as the peer of our sign-in and token endpoints (Peer-1), configured to do what
 * ours does: authorization code without PKCE for a confidential client (client_secret_post), one
 * scope (`full`) for one API, opaque access tokens, a refresh token with every grant, rotated at each
 * use; accounts checked with the platform's own password hashing (scrypt, its parameters); every
 * artifact persisted through sqlite-adapter.ts (WAL, synchronous = FULL, as ours).
 *   tsx scripts/bench/peers/oidc-provider-server.ts PORT DIR USERS
 * creates the accounts user0@bench.test … user<USERS-1>@bench.test with the password `bench-password`.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import Provider from 'oidc-provider';
import { hashPassword, verifyPassword } from '../../../src/platform/security/passwords';
import { benchClient, benchPassword } from './bench-client';
import { sqliteAdapter } from './sqlite-adapter';

const resource = 'urn:bench:api';

const [port, dir, users] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const file = join(dir!, 'oidc.sqlite');

// The accounts, in the same database file, hashed as the platform hashes its users' passwords.
const accounts = new Database(file);
accounts.pragma('journal_mode = WAL');
accounts.pragma('synchronous = FULL');
accounts.exec('CREATE TABLE IF NOT EXISTS accounts (email TEXT PRIMARY KEY, password_hash TEXT NOT NULL)');
const insertAccount = accounts.prepare(
  'INSERT OR REPLACE INTO accounts (email, password_hash) VALUES (?, ?)',
);
for (let i = 0; i < Number(users); i++)
  insertAccount.run(`user${i}@bench.test`, await hashPassword(benchPassword));
const findAccount = accounts.prepare('SELECT password_hash FROM accounts WHERE email = ?');
const dummyHash = await hashPassword(randomBytes(16).toString('hex'));

const provider = new Provider(issuer, {
  adapter: sqliteAdapter(file),
  clients: [
    {
      client_id: benchClient.client_id,
      client_secret: benchClient.client_secret,
      redirect_uris: [benchClient.redirect_uri],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_post',
    },
  ],
  scopes: ['full'],
  features: {
    devInteractions: { enabled: false },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: () => ({ scope: 'full', accessTokenFormat: 'opaque', accessTokenTTL: 3600 }),
    },
  },
  interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
  findAccount: async (_ctx, id) => ({ accountId: id, claims: async () => ({ sub: id }) }),
  cookies: { keys: [randomBytes(32).toString('hex')] },
  pkce: { required: () => false },
  issueRefreshToken: async () => true,
  rotateRefreshToken: true,
  expiresWithSession: async () => false,
  ttl: {
    AccessToken: 3600,
    AuthorizationCode: 60,
    RefreshToken: 1209600,
    Grant: 1209600,
    Interaction: 3600,
    Session: 1209600,
  },
});
provider.on('server_error', (_ctx, error) => console.error(error));

const page = (res: ServerResponse, status: number, body: string) => {
  res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>${body}`);
};
async function formOf(req: IncomingMessage) {
  let body = '';
  for await (const chunk of req) body += chunk;
  return new URLSearchParams(body);
}
const loginForm = (uid: string, error = '') =>
  `<form method="post" action="/interaction/${uid}/login">${error}<input name="email"><input name="password" type="password"><button>Sign in</button></form>`;

const handleProvider = provider.callback();

createServer(async (req, res) => {
  const match = /^\/interaction\/([^/?]+)(\/login|\/confirm)?$/.exec(req.url ?? '');
  if (!match) return handleProvider(req, res);
  try {
    const details = await provider.interactionDetails(req, res);
    const [, uid, action] = match;
    if (req.method === 'GET' && !action) {
      if (details.prompt.name === 'login') return page(res, 200, loginForm(uid!));
      return page(
        res,
        200,
        `<form method="post" action="/interaction/${uid}/confirm"><p>Allow ${details.params.client_id} to use your account (full)?</p><button name="decision" value="allow">Allow</button></form>`,
      );
    }
    if (req.method === 'POST' && action === '/login') {
      const form = await formOf(req);
      const email = form.get('email') ?? '';
      const found = findAccount.get(email) as { password_hash: string } | undefined;
      const valid = await verifyPassword(form.get('password') ?? '', found?.password_hash ?? dummyHash);
      if (!found || !valid)
        return page(res, 401, loginForm(uid!, '<p>The email or password is incorrect.</p>'));
      return provider.interactionFinished(
        req,
        res,
        { login: { accountId: email } },
        { mergeWithLastSubmission: false },
      );
    }
    if (req.method === 'POST' && action === '/confirm') {
      await formOf(req);
      const { accountId } = details.session!;
      const grant = details.grantId
        ? (await provider.Grant.find(details.grantId))!
        : new provider.Grant({ accountId, clientId: details.params.client_id as string });
      // What the consent prompt found missing, granted (the scope is both an OAuth scope and the API's).
      const missing = details.prompt.details as {
        missingOIDCScope?: string[];
        missingResourceScopes?: Record<string, string[]>;
      };
      if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
      for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {}))
        grant.addResourceScope(indicator, scopes.join(' '));
      const grantId = await grant.save();
      return provider.interactionFinished(
        req,
        res,
        { consent: { grantId } },
        { mergeWithLastSubmission: true },
      );
    }
    page(res, 404, '<p>Not found</p>');
  } catch (error) {
    console.error(error);
    page(res, 400, '<p>Bad interaction</p>');
  }
}).listen(Number(port), '127.0.0.1');
