import { createHash, randomBytes } from 'node:crypto';
import { request, type APIRequestContext, type BrowserContext } from '@playwright/test';
import type { AppConfig } from '../../src/shared/api/app-config';
import { entityPath, entityPaths } from '../../src/shared/api/entities';
import type { Me } from '../../src/shared/api/me';
import { proxyPaths, requiredHeader, type ProxyTokenResponse } from '../../src/shared/api/proxy';
import { platformUrl, webUrl } from './urls';

/**
 * Signing in without the sign-in pages' UI: the authorization-code flow with PKCE over plain HTTP, as
 * the app and the platform run it (the platform's login form and consent, then the proxy's token
 * endpoint), and the browser handed the session the proxy set. Only the sign-in specs go through the
 * pages themselves; every other test starts signed in, which is faster and leaves the sign-in UI to
 * the tests about it.
 */

/** The name of the app's hint that this browser holds a session (src/web/lib/session.ts). */
const appSessionHintKey = 'asset-manager.session';

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** The hidden fields of a server-rendered form (the platform's login and consent pages). */
function hiddenFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [, name, value] of html.matchAll(/<input type="hidden" name="([^"]*)" value="([^"]*)">/g)) {
    fields[name!] = value!
      .replace(/&quot;/g, '"')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  }
  return fields;
}

const codeOf = (location: string | undefined) => {
  const code = location && new URL(location).searchParams.get('code');
  if (!code) throw new Error(`The platform did not redirect with a code: ${location}`);
  return code;
};

/** A session the proxy opened for a person: its cookies, and the access token it answered with. */
export interface HttpSession {
  accessToken: string;
  /** The proxy's refresh cookie and session hint, and the platform's own sign-in cookies. */
  cookies: Awaited<ReturnType<APIRequestContext['storageState']>>['cookies'];
}

/** Signs `email` in over HTTP, allowing the app when the platform asks, and returns the proxy's session. */
export async function signInOverHttp(email: string, password: string): Promise<HttpSession> {
  const http = await request.newContext({ maxRedirects: 0 });
  try {
    const config = (await (await http.get(`${webUrl}${proxyPaths.appConfig}`)).json()) as AppConfig;
    const verifier = base64url(randomBytes(32));
    const state = base64url(randomBytes(16));
    const authorize = new URL(`${config.platformAuthUrl.replace(/\/+$/, '')}/auth/login/oauth/authorize`);
    authorize.search = new URLSearchParams({
      response_type: 'code',
      client_id: config.clientId,
      redirect_uri: config.redirectUri,
      scope: config.scope,
      state,
      code_challenge: base64url(createHash('sha256').update(verifier).digest()),
      code_challenge_method: 'S256',
    }).toString();

    const login = await http.get(authorize.href);
    const signedIn = await http.post(`${config.platformAuthUrl.replace(/\/+$/, '')}/auth/login`, {
      form: { ...hiddenFields(await login.text()), email, password },
    });
    if (signedIn.status() !== 303) throw new Error(`Sign-in refused (${signedIn.status()}) for ${email}`);
    // Back to authorize: a code at once where this person allowed the app before, else the consent page.
    const back = await http.get(new URL(signedIn.headers().location!, authorize).href);
    const redirect =
      back.status() === 200
        ? await http.post(authorize.origin + authorize.pathname, {
            form: { ...hiddenFields(await back.text()), decision: 'allow' },
          })
        : back;
    const code = codeOf(redirect.headers().location);

    const tokens = await http.post(`${webUrl}${proxyPaths.token}`, {
      headers: { origin: webUrl, [requiredHeader.name]: requiredHeader.value },
      form: {
        grant_type: 'authorization_code',
        client_id: config.clientId,
        redirect_uri: config.redirectUri,
        code,
        state,
        code_verifier: verifier,
      },
    });
    if (!tokens.ok()) throw new Error(`Token exchange failed (${tokens.status()}): ${await tokens.text()}`);
    const { access_token } = (await tokens.json()) as ProxyTokenResponse;
    return { accessToken: access_token, cookies: (await http.storageState()).cookies };
  } finally {
    await http.dispose();
  }
}

/**
 * Gives a browser context the session: the proxy's cookies and the app's hint that it holds one (what
 * the app itself keeps after a sign-in). The app then starts as in a new tab of a signed-in browser:
 * it renews through the refresh cookie. For a fresh context: whatever the context held is replaced.
 */
export async function handSessionTo(context: BrowserContext, session: HttpSession) {
  await context.setStorageState({
    cookies: session.cookies,
    origins: [{ origin: webUrl, localStorage: [{ name: appSessionHintKey, value: '1' }] }],
  });
}

/** Calls the platform's API with a token of `session`, as the app would. */
export async function platformApi(accessToken: string) {
  return request.newContext({
    baseURL: platformUrl,
    extraHTTPHeaders: { authorization: `Bearer ${accessToken}` },
  });
}

/**
 * Deletes every file on the entities `accessToken`'s person owns (what a test uploaded), through the
 * API as the person would, so that no test leaves files behind for the next.
 */
export async function deleteOwnFiles(accessToken: string) {
  const api = await platformApi(accessToken);
  try {
    const me = (await (await api.get('/v2/core/me')).json()) as Me;
    for (const entity of me.entities) {
      const read = await api.get(entityPath(entity.type, entity.id));
      if (!read.ok()) continue;
      const body = (await read.json()) as Record<string, { links?: { assets?: string } }>;
      const list = body[entityPaths[entity.type].singular]?.links?.assets;
      let next: string | null = list ?? null;
      const ids: number[] = [];
      while (next) {
        const page = (await (await api.get(next)).json()) as {
          assets: { id: number }[];
          next_cursor: string | null;
        };
        ids.push(...page.assets.map((asset) => asset.id));
        next = page.next_cursor ? `${list}?cursor=${encodeURIComponent(page.next_cursor)}` : null;
      }
      for (const id of ids) {
        const gone = await api.delete(`/v2/core/assets/${id}`);
        // A file an accreditation decision was made on is kept as its evidence (409 `retained`).
        const retained =
          gone.status() === 409 && ((await gone.json()) as { code?: string }).code === 'retained';
        if (![204, 404].includes(gone.status()) && !retained)
          throw new Error(`Could not delete asset ${id}: ${gone.status()} ${await gone.text()}`);
      }
    }
  } finally {
    await api.dispose();
  }
}
