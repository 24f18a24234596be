import { http, HttpResponse, type HttpHandler } from 'msw';
import { setupServer } from 'msw/node';
import { unknownCapabilities, type AppConfig, type Capabilities } from '../../shared/api/app-config';
import { CapabilityStore } from '../lib/platform/capabilities';
import { createPlatformHttp, type TokenSource } from '../lib/platform/http';
import { createPlatform } from '../lib/platform/platform';

/** Where the app's tests place the platform and the proxy: nothing listens, MSW answers in process. */
export const platformUrl = 'https://platform.test';
export const appUrl = 'https://app.test';

export function testConfig(capabilities: Partial<Capabilities> = {}, apiBaseUrl = platformUrl): AppConfig {
  return {
    platformBaseUrl: platformUrl,
    platformAuthUrl: platformUrl,
    apiBaseUrl,
    clientId: 'asset-manager',
    scope: 'full',
    redirectUri: `${appUrl}/auth/callback`,
    tokenEndpoint: `${appUrl}/oauth/token`,
    revokeEndpoint: `${appUrl}/oauth/revoke`,
    entityPaths: {
      User: '/v2/core/users/:id',
      Product: '/v2/core/products/:id',
      Investment: '/v2/core/investments/:id',
      Accreditation: '/v2/core/accreditations/:id',
      IndicationOfInterest: '/v2/core/indications_of_interest/:id',
      TeamMember: '/v2/core/team_members/:id',
    },
    capabilities: { ...unknownCapabilities, ...capabilities },
  };
}

/** A session whose tokens the test controls: each renewal hands out the next token of the list. */
export function tokenSource(first = 'token-1', renewals: (string | null)[] = ['token-2']) {
  let current: string | null = first;
  const source: TokenSource & { renewals: number } = {
    renewals: 0,
    accessToken: async () => current,
    renew: async () => {
      source.renewals += 1;
      current = renewals.shift() ?? null;
      return current === null ? null : { access_token: current };
    },
  };
  return source;
}

/** The adapter as the app builds it, over MSW. */
export function platformFor(config: AppConfig, tokens: TokenSource = tokenSource()) {
  let ended = 0;
  const store = new CapabilityStore(config.capabilities);
  const http = createPlatformHttp(config, tokens, () => {
    ended += 1;
  });
  return { platform: createPlatform(config, http, store), capabilities: store, sessionEnded: () => ended };
}

/** An MSW server for one test file; `use` adds handlers for one test. */
export function mockPlatform(...handlers: HttpHandler[]) {
  const server = setupServer(...handlers);
  return server;
}

/** One Asset as a platform that implements only the spec answers it (spec 2.2). */
export function specAsset(fields: Partial<Record<string, unknown>> = {}) {
  return {
    id: 11,
    name: 'logo.png',
    file_type: 'logo',
    assetable: { type: 'Product', id: 7 },
    key: 'k-11',
    meta: {},
    private: false,
    thumbifiable: false,
    ...fields,
  };
}

export { http, HttpResponse };
