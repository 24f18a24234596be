import { beforeEach, describe, expect, it } from 'vitest';
import { appUrl, http, HttpResponse, platformDouble, testConfig } from '../testing/platform-double';
import { keepFor, recentlyOpened, rememberOpened } from './browser-memory';
import { unfinishedUploads } from './unfinished-uploads';
import { Session } from './session';

const server = platformDouble();

const tokenUrl = `${appUrl}/oauth/token`;
const revokeUrl = `${appUrl}/oauth/revoke`;

/** The proxy's token endpoint, counting refreshes and answering new access tokens. */
function proxyRefreshes(
  answer: () => Response = () =>
    HttpResponse.json({ access_token: 'renewed', token_type: 'bearer', expires_in: 3600 }),
) {
  const seen = { count: 0 };
  server.use(
    http.post(tokenUrl, async () => {
      seen.count += 1;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return answer();
    }),
  );
  return seen;
}

beforeEach(() => {
  // A browser that signed in before: the proxy holds its refresh cookie.
  localStorage.setItem('asset-manager.session', '1');
});

describe('renewing the session through the proxy', () => {
  it('makes one refresh for any number of callers at once (rotated refresh tokens must not race)', async () => {
    const refreshes = proxyRefreshes();
    const session = new Session(testConfig());
    const users = await Promise.all([session.renew(), session.renew(), session.accessToken()]);
    expect(refreshes.count).toBe(1);
    expect(users.map((u) => (typeof u === 'string' ? u : u?.access_token))).toEqual([
      'renewed',
      'renewed',
      'renewed',
    ]);
    expect(session.signedIn).toBe(true);
  });

  it('ends the session when the proxy refuses to renew it, without asking again', async () => {
    const refreshes = proxyRefreshes(() => HttpResponse.json({ error: 'invalid_grant' }, { status: 400 }));
    const session = new Session(testConfig());
    expect(await session.renew()).toBeNull();
    expect(await session.isSignedIn()).toBe(false);
    expect(refreshes.count).toBe(1);
  });

  it('tells the page when the session ends while it is in use, once', () => {
    const session = new Session(testConfig());
    let told = 0;
    session.subscribe(() => (told += 1));
    session.markEnded();
    session.markEnded();
    expect(session.ended).toBe(true);
    expect(told).toBe(1);
  });
});

describe('C5: signing out', () => {
  it('is not an ended session: requests it cuts short raise no "sign in again"', async () => {
    server.use(http.post(revokeUrl, () => HttpResponse.json({ platform: 'signed_out' })));
    const session = new Session(testConfig());
    const leaving = session.signOut();
    // A page's request that finds no token while the sign-out is under way.
    session.markEnded();
    await leaving;
    session.markEnded();
    expect(session.ended).toBe(false);
  });

  for (const [what, answer, outcome] of [
    ['the platform revoked the session', () => HttpResponse.json({ platform: 'signed_out' }), 'signed_out'],
    ['the platform has no revocation', () => HttpResponse.json({ platform: 'not_offered' }), 'not_offered'],
    [
      'the platform could not be reached',
      () => HttpResponse.json({ platform: 'unreachable' }),
      'unreachable',
    ],
    ['the proxy itself is down', () => HttpResponse.error(), 'unreachable'],
  ] as const) {
    it(`ends the app's session when ${what}, and says what happened there (${outcome})`, async () => {
      server.use(http.post(revokeUrl, answer));
      const session = new Session(testConfig());
      sessionStorage.setItem('oidc.user:x', '{}');
      rememberOpened({ type: 'Product', id: 7, name: 'Solar' });
      await unfinishedUploads.addUpload('deck', unfinished);
      expect(await session.signOut()).toBe(outcome);
      expect(sessionStorage.length).toBe(0);
      expect(recentlyOpened()).toEqual([]);
      // The next person here is not offered the last one's unfinished uploads.
      expect(await unfinishedUploads.findAllUploads()).toEqual([]);
      expect(localStorage.getItem('asset-manager.session')).toBeNull();
      // The next sign-in asks for the password again (prompt=login).
      expect(localStorage.getItem('asset-manager.signed-out')).toBe('1');
    });
  }
});

/** A resumable upload as tus-js-client records it. */
const unfinished = {
  size: 6_000_000,
  metadata: { name: 'deck.pdf', file_type: 'pitch_deck', assetable_type: 'Product', assetable_id: '7' },
  creationTime: '2026-11-27T16:00:00.000Z',
  urlStorageKey: '',
  uploadUrl: 'https://platform.test/v2/core/uploads/u1',
  parallelUploadUrls: null,
};

it('forgets the unfinished uploads kept for another person when someone else signs in here', async () => {
  keepFor(2);
  await unfinishedUploads.addUpload('deck', unfinished);
  keepFor(2);
  expect(await unfinishedUploads.findAllUploads()).toHaveLength(1);
  keepFor(3);
  expect(await unfinishedUploads.findAllUploads()).toEqual([]);
});
