import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthErrorAnswer, shapeOf, tokenAnswer, tokenRequestFields } from '../../testing/spec-examples';
import { tokenResponseSchema } from '../token-exchange';
import { type FakePlatform, fakeClientId, startFakePlatform } from './fake-platform';

/**
 * The proxy's fake platform against the spec examples every platform double shares
 * (src/testing/spec-examples.ts): asked spec 4.2's example request, it answers spec 2.1's object.
 */
describe("conformance: the fake platform answers the spec's token request with the shared example's shape", () => {
  let platform: FakePlatform;
  beforeAll(async () => {
    platform = await startFakePlatform();
  });
  afterAll(() => platform.close());

  const tokenRequest = (body: Record<string, string>) =>
    fetch(`${platform.baseUrl}/v2/core/oauth/token?grant_type=authorization_code`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  /** Spec 4.2's fields, and the PKCE verifier the proxy adds (one a spec-only platform may ignore). */
  function specRequest() {
    const { code, state, verifier } = platform.issueCode();
    const values: Record<(typeof tokenRequestFields)[number], string> = {
      client_id: fakeClientId,
      client_secret: platform.secret,
      code,
      state,
    };
    return { ...values, code_verifier: verifier };
  }

  it("answers spec 2.1's flat token object, with RFC 6749's additions the proxy accepts", async () => {
    const response = await tokenRequest(specRequest());
    expect(response.status).toBe(200);
    const answer: unknown = await response.json();
    // The spec's fields, and the two of RFC 6749 5.1 the proxy passes on to the app.
    const additions = { expires_in: 3600, scope: 'full' };
    expect(shapeOf(answer)).toEqual(shapeOf({ ...tokenAnswer('access', 'refresh'), ...additions }));
    expect(answer).toMatchObject({ token_type: 'bearer' });
    expect(tokenResponseSchema.parse(answer)).toEqual(answer);
  });

  it('refuses a request that is not the spec example, in the shared OAuth error shape', async () => {
    const { code_verifier: _verifier, state: _state, ...withoutState } = specRequest();
    const response = await tokenRequest(withoutState);
    expect(response.status).toBe(400);
    expect(shapeOf(await response.json())).toEqual(
      shapeOf(oauthErrorAnswer('invalid_request', 'Not shown.')),
    );
  });
});
