import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { browser, hiddenFields } from '../testing/http-client';
import {
  bearer,
  demoPassword,
  startPlatform,
  type TestPlatform,
  webRedirectUri,
} from '../testing/platform-server';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startPlatform();
});
afterAll(() => platform.close());

/** Plain HTTP through the sign-in pages, as a person with a browser (or curl with a cookie jar) would. */
async function signInAndConsent(authorizeUrl: URL, email: string): Promise<URL> {
  const b = browser();
  const login = await b.get(authorizeUrl.toString());
  expect(login.status).toBe(200);
  const signedIn = await b.postForm(`${platform.url}/auth/login`, {
    ...hiddenFields(await login.text()),
    email,
    password: demoPassword,
  });
  expect(signedIn.status).toBe(303);
  const consent = await b.get(new URL(signedIn.headers.get('location')!, platform.url).toString());
  const allowed = await b.postForm(`${platform.url}/auth/login/oauth/authorize`, {
    ...hiddenFields(await consent.text()),
    decision: 'allow',
  });
  expect(allowed.status).toBe(303);
  return new URL(allowed.headers.get('location')!);
}

describe('AS1 RFC 8414 authorization-server metadata', () => {
  it('describes the endpoints, PKCE S256, the grants, client authentication and scopes', async () => {
    const response = await fetch(`${platform.url}/.well-known/oauth-authorization-server`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({
      issuer: platform.url,
      authorization_endpoint: `${platform.url}/auth/login/oauth/authorize`,
      token_endpoint: `${platform.url}/v2/core/oauth/token`,
      revocation_endpoint: `${platform.url}/v2/core/oauth/revoke`,
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      scopes_supported: ['basic', 'full'],
      authorization_response_iss_parameter_supported: true,
    });
    expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/);
  });
  it('may be read by the web app from the browser (CORS)', async () => {
    const origin = 'http://127.0.0.1:5173';
    const response = await fetch(`${platform.url}/.well-known/oauth-authorization-server`, {
      headers: { origin },
    });
    expect(response.headers.get('access-control-allow-origin')).toBe(origin);
  });
});

describe('the whole flow with an independent OAuth client library (oauth4webapi)', () => {
  it('configures itself from the RFC 8414 metadata alone (AS1), then authorizes, exchanges the code with PKCE in the form shape, refreshes and revokes', async () => {
    const options = { [oauth.allowInsecureRequests]: true };
    const issuer = new URL(platform.url);
    const as = await oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options }),
    );
    expect(as.code_challenge_methods_supported).toContain('S256');
    const client: oauth.Client = { client_id: platform.webClient.client_id };
    const auth = oauth.ClientSecretBasic(platform.webClient.client_secret);

    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const authorizeUrl = new URL(as.authorization_endpoint!);
    authorizeUrl.search = new URLSearchParams({
      client_id: client.client_id,
      redirect_uri: webRedirectUri,
      response_type: 'code',
      scope: 'full',
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();

    const callback = await signInAndConsent(authorizeUrl, 'issuer@demo.test');
    // Checks state and the RFC 9207 `iss` parameter.
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const tokenResponse = await oauth.authorizationCodeGrantRequest(
      as,
      client,
      auth,
      params,
      webRedirectUri,
      verifier,
      options,
    );
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);

    const me = meSchema.parse(
      await (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(tokens.access_token) })).json(),
    );
    expect(me.user.email).toBe('issuer@demo.test');

    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, auth, tokens.refresh_token!, options),
    );
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(
      (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(refreshed.access_token) })).status,
    ).toBe(200);

    await oauth.processRevocationResponse(
      await oauth.revocationRequest(as, client, auth, refreshed.refresh_token!, options),
    );
    expect(
      (await fetch(`${platform.url}/v2/core/me`, { headers: bearer(refreshed.access_token) })).status,
    ).toBe(401);
    const afterRevoke = await oauth.refreshTokenGrantRequest(
      as,
      client,
      auth,
      refreshed.refresh_token!,
      options,
    );
    await expect(oauth.processRefreshTokenResponse(as, client, afterRevoke)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
  });

  it("runs the same flow in the spec's JSON shape, with state in the token body", async () => {
    const state = 'spec-shape-state';
    const authorizeUrl = new URL(`${platform.url}/auth/login/oauth/authorize`);
    authorizeUrl.search = new URLSearchParams({
      client_id: platform.webClient.client_id,
      redirect_uri: webRedirectUri,
      state,
      scope: 'full',
    }).toString();
    const callback = await signInAndConsent(authorizeUrl, 'investor@demo.test');
    expect(callback.searchParams.get('state')).toBe(state);

    const response = await fetch(`${platform.url}/v2/core/oauth/token?grant_type=authorization_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: platform.webClient.client_id,
        client_secret: platform.webClient.client_secret,
        code: callback.searchParams.get('code'),
        state,
      }),
    });
    expect(response.status).toBe(200);
    const tokens = (await response.json()) as {
      token_type: string;
      access_token: string;
      refresh_token: string;
    };
    expect(Object.keys(tokens)).toEqual(
      expect.arrayContaining(['token_type', 'access_token', 'refresh_token']),
    );
    expect(tokens.token_type).toBe('bearer');

    const refresh = await fetch(`${platform.url}/v2/core/oauth/token?grant_type=refresh_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_id: platform.webClient.client_id,
        client_secret: platform.webClient.client_secret,
        refresh_token: tokens.refresh_token,
      }),
    });
    expect(refresh.status).toBe(200);
    const me = meSchema.parse(
      await (
        await fetch(`${platform.url}/v2/core/me`, {
          headers: bearer(((await refresh.json()) as { access_token: string }).access_token),
        })
      ).json(),
    );
    expect(me.user.email).toBe('investor@demo.test');
  });
});
