import { http, HttpResponse, type HttpHandler } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { ApiAccreditation } from '../../shared/api/accreditations';
import { exampleAsset, problemAnswer } from '../../testing/spec-examples';
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

/**
 * The platform double of one test file, as most files want it: listening before the first test (a
 * request nothing answers fails the test), the handlers a test adds with `use` dropped after it,
 * closed after the last. Call it at the top of the file.
 */
export function platformDouble(...handlers: HttpHandler[]) {
  const server = mockPlatform(...handlers);
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterEach(() => server.resetHandlers());
  afterAll(() => server.close());
  return server;
}

/** One Asset as a platform that implements only the spec answers it (spec 2.2's example). */
export function specAsset(fields: Partial<Record<string, unknown>> = {}) {
  return { ...exampleAsset, ...fields };
}

/** An error as our platform answers it: RFC 9457 problem JSON with a `code`. */
export function problemResponse(
  status: number,
  code: string,
  extra: Parameters<typeof problemAnswer>[2] = {},
  headers: Record<string, string> = {},
) {
  return HttpResponse.json(problemAnswer(status, code, extra), {
    status,
    headers: { 'Content-Type': 'application/problem+json', ...headers },
  });
}

/**
 * What an accreditation needs, as our platform works it out (shared/api/accreditations.ts): a letter
 * (one of two kinds), a licence's two sides, and a utility bill when the licence lacks the address.
 */
export function requirements(
  met: Partial<Record<'accreditation_letter' | 'drivers_license' | 'utility_bill', boolean>> = {},
  addressOnLicence = true,
): ApiAccreditation['requirements'] {
  return [
    {
      kind: 'accreditation_letter',
      file_types: ['letter_of_accreditation', 'executed_letter_of_accreditation'],
      min_files: 1,
      met: met.accreditation_letter ?? false,
    },
    {
      kind: 'drivers_license',
      file_types: ['drivers_license'],
      min_files: 2,
      met: met.drivers_license ?? false,
    },
    ...(addressOnLicence
      ? []
      : [
          {
            kind: 'utility_bill' as const,
            file_types: ['utility_bill'],
            min_files: 1,
            met: met.utility_bill ?? false,
          },
        ]),
  ];
}

/** One Accreditation as our platform answers it (the review contract), with these fields changed. */
export function ourAccreditation(fields: Partial<ApiAccreditation> = {}): ApiAccreditation {
  const id = fields.id ?? 3;
  return {
    id,
    name: `Accreditation of Ivy Investor`,
    status: 'documents_needed',
    review_note: null,
    review_reason: null,
    reviewed_at: null,
    reviewed_by: null,
    last_decision: null,
    submitted_at: null,
    address_on_licence: true,
    requirements: requirements(),
    owner: { id: 2, name: 'Ivy Investor', email: 'ivy@x.test' },
    etag: `"accreditation.${id}.1"`,
    links: {
      assets: `/v2/core/accreditations/${id}/assets`,
      history: `/v2/core/accreditations/${id}/history`,
    },
    ...fields,
  };
}

/** An Asset of an accreditation as ours answers it. */
export function accreditationAsset(fields: Partial<Record<string, unknown>> & { id: number }) {
  return specAsset({
    name: `file-${fields.id}.png`,
    file_type: 'letter_of_accreditation',
    assetable: { type: 'Accreditation', id: 3 },
    private: true,
    content_type: 'image/png',
    ...fields,
  });
}

export { http, HttpResponse };
/** The shapes of the spec's examples, shared with the other platform doubles: answers are built from these. */
export {
  assetAnswer,
  assetListAnswers,
  assetPageAnswer,
  downloadUrlAnswer,
  entityAnswers,
} from '../../testing/spec-examples';
