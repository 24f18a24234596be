import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProbeResult } from './platform-probe';
import { send, startProxy, type RunningProxy } from './testing/proxy-server';

const platform = { baseUrl: 'http://platform.test:4000', secret: 'a-client-secret-that-must-not-leak' };
const indexHtml =
  '<!doctype html><html><head><script type="module" src="/assets/app-1a2b3c.js"></script></head><body><div id="root"></div></body></html>';

/** Splits a CSP header into its directives. */
function csp(header: string | string[] | undefined): Map<string, string[]> {
  const directives = new Map<string, string[]>();
  for (const part of String(header ?? '').split(';')) {
    const [name, ...values] = part.trim().split(/\s+/);
    if (name) directives.set(name, values);
  }
  return directives;
}

describe('with a built app', () => {
  const script = 'console.log("app");'.repeat(50);
  let dist: string;
  let proxy: RunningProxy;

  beforeAll(async () => {
    dist = await mkdtemp(join(tmpdir(), 'proxy-dist-'));
    await mkdir(join(dist, 'assets'));
    await writeFile(join(dist, 'index.html'), indexHtml);
    await writeFile(join(dist, 'assets', 'app-1a2b3c.js'), script);
    // As the build writes them (vite.config.ts).
    await writeFile(join(dist, 'assets', 'app-1a2b3c.js.br'), brotliCompressSync(script));
    await writeFile(join(dist, 'assets', 'app-1a2b3c.js.gz'), gzipSync(script));
    await writeFile(join(dist, 'index.html.br'), brotliCompressSync(indexHtml));
    await writeFile(join(dist, '.env'), 'SECRET=1');
    proxy = await startProxy(platform, {
      WEB_DIST_DIR: dist,
      PLATFORM_AUTH_URL: 'https://auth.platform.test',
    });
  });
  afterAll(async () => {
    await proxy.close();
    await rm(dist, { recursive: true, force: true });
  });

  it('serves index.html at / with a CSP that allows no inline script (P11)', async () => {
    const answer = await send(proxy.port, { path: '/', headers: { accept: 'text/html' } });
    expect(answer.status).toBe(200);
    expect(answer.text).toBe(indexHtml);
    expect(answer.headers['content-type']).toMatch(/^text\/html/);
    expect(answer.headers['cache-control']).toBe('no-cache');

    const policy = csp(answer.headers['content-security-policy']);
    expect(policy.get('script-src')).toEqual(["'self'"]);
    expect(policy.get('default-src')).toEqual(["'self'"]);
    expect(policy.get('style-src')).toEqual(["'self'"]);
    expect(policy.get('connect-src')).toEqual(["'self'", 'http://platform.test:4000']);
    expect(policy.get('img-src')).toEqual(["'self'", 'data:', 'blob:', 'http://platform.test:4000']);
    expect(policy.get('form-action')).toEqual(["'self'", 'https://auth.platform.test']);
    expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
    expect(policy.get('base-uri')).toEqual(["'none'"]);
    expect(policy.get('object-src')).toEqual(["'none'"]);
    expect(String(answer.headers['content-security-policy'])).not.toMatch(/unsafe-inline|unsafe-eval/);
    // Plain http: upgrading would send the browser to https addresses nobody serves.
    expect(policy.has('upgrade-insecure-requests')).toBe(false);

    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
    expect(answer.headers['x-frame-options']).toBe('DENY');
    expect(answer.headers['strict-transport-security']).toBeUndefined();
  });

  it.each(['/products/7', '/auth/callback?code=abc&state=xyz', '/accreditations/3/documents'])(
    'answers the SPA page for %s',
    async (path) => {
      const answer = await send(proxy.port, {
        path,
        headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
      });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(indexHtml);
      expect(answer.headers['cache-control']).toBe('no-cache');
      expect(csp(answer.headers['content-security-policy']).get('script-src')).toEqual(["'self'"]);
    },
  );

  it('serves hashed assets for a year, and 404s a missing one instead of the page', async () => {
    const script = await send(proxy.port, { path: '/assets/app-1a2b3c.js', headers: { accept: '*/*' } });
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/javascript/);
    expect(script.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const missing = await send(proxy.port, { path: '/assets/app-gone.js', headers: { accept: '*/*' } });
    expect(missing.status).toBe(404);
    expect(missing.text).not.toContain('<html');
    expect(missing.headers['x-content-type-options']).toBe('nosniff');
  });

  it('sends the compressed copy the build made to browsers that accept it', async () => {
    const path = '/assets/app-1a2b3c.js';
    const br = await send(proxy.port, { path, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(script);
    expect(br.body.length).toBeLessThan(script.length / 5);
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');

    const gz = await send(proxy.port, { path, headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(script);

    const plain = await send(proxy.port, { path });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.text).toBe(script);

    const page = await send(proxy.port, {
      path: '/products/7',
      headers: { accept: 'text/html', 'accept-encoding': 'br' },
    });
    expect(page.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(page.body).toString()).toBe(indexHtml);
    expect(csp(page.headers['content-security-policy']).get('script-src')).toEqual(["'self'"]);
  });

  it('does not serve dotfiles or anything outside the folder', async () => {
    expect((await send(proxy.port, { path: '/.env' })).status).toBe(404);
    const traversal = await send(proxy.port, { path: '/../package.json' });
    expect([403, 404]).toContain(traversal.status);
    expect(traversal.text).not.toContain('asset-manager');
    expect((await send(proxy.port, { path: '/%2e%2e/%2e%2e/etc/passwd' })).text).not.toContain('root:');
  });

  it('never answers the page for the proxy endpoints', async () => {
    const answer = await send(proxy.port, { path: '/oauth/unknown', headers: { accept: 'text/html' } });
    expect(answer.status).toBe(404);
    expect(answer.json().error).toBe('invalid_request');
  });

  it('sends the security headers on JSON answers too', async () => {
    const answer = await send(proxy.port, { path: '/app-config.json' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-security-policy']).toBeDefined();
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
    expect(answer.json().platformAuthUrl).toBe('https://auth.platform.test');
    expect(answer.text).not.toContain(platform.secret);
  });
});

describe('the page painted before the app runs (W4)', () => {
  let dist: string;
  let template: string;
  const started: RunningProxy[] = [];
  const proxyWith = async (overrides: Record<string, string> = {}, probe?: () => Promise<ProbeResult>) => {
    const proxy = await startProxy(platform, { WEB_DIST_DIR: dist, ...overrides }, probe);
    started.push(proxy);
    return proxy;
  };
  /** The page as a browser gets it; the proxy's first probe has answered by then. */
  const page = async (proxy: RunningProxy, path: string, headers: Record<string, string> = {}) => {
    await send(proxy.port, { path: '/app-config.json' });
    const answer = await send(proxy.port, { path, headers: { accept: 'text/html', ...headers } });
    expect(answer.status).toBe(200);
    return answer;
  };
  /** The JSON of the page's `app-config` data block, as the app reads it (up to the block's end). */
  const inlineConfig = (html: string) => {
    const start = html.indexOf('<script type="application/json" id="app-config">');
    expect(start).toBeGreaterThan(-1);
    const text = html.slice(html.indexOf('>', start) + 1, html.indexOf('</script>', start));
    return text === '' ? null : (JSON.parse(text) as Record<string, unknown>);
  };
  const landingHeading = '<h1>Your investment documents, in one place</h1>';
  const signInButton =
    /<button type="submit" name="sign-in" value="" class="button primary large">Sign in<\/button>/;
  const loadingStatus =
    '<p class="status" role="status"><span class="spinner" aria-hidden="true"></span> Loading…</p>';

  beforeAll(async () => {
    // The real index.html: its slots are what the proxy fills.
    template = await readFile('index.html', 'utf8');
    dist = await mkdtemp(join(tmpdir(), 'proxy-page-'));
    await writeFile(join(dist, 'index.html'), template);
  });
  afterAll(async () => {
    await Promise.all(started.map((proxy) => proxy.close()));
    await rm(dist, { recursive: true, force: true });
  });

  it('carries the app settings in a data block, the same as /app-config.json, and asks for nothing more', async () => {
    const proxy = await proxyWith();
    const answer = await page(proxy, '/');
    const config = (await send(proxy.port, { path: '/app-config.json' })).json();
    expect(inlineConfig(answer.text)).toEqual(config);
    expect(answer.text).not.toContain('rel="preload"');
    // A data block runs nothing: the CSP stays without inline scripts (P11).
    expect(csp(answer.headers['content-security-policy']).get('script-src')).toEqual(["'self'"]);
  });

  it('paints the landing with its Sign in button at / for a browser without a session', async () => {
    const answer = await page(await proxyWith(), '/');
    expect(answer.text).toContain('<header class="site-header">');
    expect(answer.text).toContain(landingHeading);
    expect(answer.text).toMatch(signInButton);
    expect(answer.text).not.toContain(loadingStatus);
    expect(answer.text).not.toContain('shell-placeholder');
  });

  it('paints the header and a loading status on deeper pages, and for a browser with a session at /', async () => {
    const proxy = await proxyWith();
    for (const [path, cookie] of [
      ['/products/7', ''],
      ['/auth/callback?code=abc&state=xyz', ''],
      ['/', 'am_session=1'],
      ['/offerings', 'other=2; am_session=1'],
    ] as const) {
      const answer = await page(proxy, path, cookie ? { cookie } : {});
      expect(answer.text, path).toContain('<header class="site-header">');
      expect(answer.text, path).toContain(loadingStatus);
      expect(answer.text, path).not.toContain(landingHeading);
      expect(answer.text, path).not.toContain('Sign in');
      // With a session the header has the user menu's rows, so it does not grow later: the Offerings
      // link, which works without the app, the name's row, and "Sign out"'s room, invisible.
      expect(answer.text.includes('<div class="user-menu">'), path).toBe(cookie !== '');
      expect(answer.text.includes('<a href="/offerings">Offerings</a>'), path).toBe(cookie !== '');
      expect(answer.text.includes('<span class="user-name"></span>'), path).toBe(cookie !== '');
      expect(
        answer.text.includes('<span class="button shell-placeholder" aria-hidden="true">Sign out</span>'),
        path,
      ).toBe(cookie !== '');
      expect(answer.headers.vary).toMatch(/cookie/i);
    }
  });

  it('paints the home as it loads at / with a session, where the platform says who is signed in', async () => {
    const probed = (me: boolean | null) => async (): Promise<ProbeResult> => ({
      reachable: true,
      cors: { direct: true, idempotencyKey: true, ifMatch: true },
      oauth: { revoke: true, refreshGrant: true },
      api: { me, entityReads: true, renditions: true, review: true, reviewHistory: true, offerings: true },
    });
    const homeLoading =
      '<div class="heading-placeholder" aria-hidden="true"></div>' +
      '<p class="lead">Choose what you want to manage files for.</p>' +
      '<p class="status" role="status"><span class="spinner" aria-hidden="true"></span> Loading your files…</p>';
    const withMe = await proxyWith({}, probed(true));
    const home = await page(withMe, '/', { cookie: 'am_session=1' });
    expect(home.text).toContain(homeLoading);
    expect(home.text).not.toContain(loadingStatus);
    expect(home.text).not.toContain(landingHeading);
    // Only the home: deeper pages, and / without a session, are as before.
    expect((await page(withMe, '/offerings', { cookie: 'am_session=1' })).text).toContain(loadingStatus);
    expect((await page(withMe, '/')).text).toContain(landingHeading);
    // A platform without /me, or one not known to have it: the app's home is another page.
    for (const me of [false, null]) {
      const answer = await page(await proxyWith({}, probed(me)), '/', { cookie: 'am_session=1' });
      expect(answer.text, String(me)).toContain(loadingStatus);
      expect(answer.text, String(me)).not.toContain('heading-placeholder');
    }
  });

  it("paints an entity page's outline as it loads, with a session, where the platform reads entities", async () => {
    const probed = (entityReads: boolean | null) => async (): Promise<ProbeResult> => ({
      reachable: true,
      cors: { direct: true, idempotencyKey: true, ifMatch: true },
      oauth: { revoke: true, refreshGrant: true },
      api: { me: true, entityReads, renditions: true, review: true, reviewHistory: true, offerings: true },
    });
    const reads = await proxyWith({}, probed(true));
    const product = await page(reads, '/products/7', { cookie: 'am_session=1' });
    // Where the page sits, its kind with room for the name, and its first slot as the app shows it,
    // with the loading status where that slot's files will be.
    expect(product.text).toContain(
      '<nav aria-label="Breadcrumb" class="breadcrumb"><a href="/">Home</a> <span aria-hidden="true">/</span> Product</nav>' +
        '<h1><span class="eyebrow">Product</span> <span class="name-placeholder" aria-hidden="true"></span></h1>' +
        // The line that will name its investments and team members, kept while they load.
        '<div class="related"></div>' +
        '<div class="slots"><section class="slot card"><div class="slot-head"><h2>Logo</h2>' +
        '<p class="hint">The product\'s logo. ' +
        'Accepts a JPEG, PNG, WebP, GIF or AVIF image up to 25 MB. ' +
        'Holds one file: a new upload replaces it.</p></div>' +
        '<p class="status" role="status"><span class="spinner" aria-hidden="true"></span> Loading the product…</p>' +
        '</section></div>',
    );
    expect(product.text).not.toContain(loadingStatus);
    // Each kind its own words; an address that names no entity gets the plain loading status.
    const accreditation = (await page(reads, '/accreditations/3/', { cookie: 'am_session=1' })).text;
    expect(accreditation).toContain('<span class="eyebrow">Accreditation</span>');
    expect(accreditation).toContain('Loading the accreditation…');
    // No slot on an accreditation's: its review comes above its slots, which would then move down.
    expect(accreditation).not.toContain('<div class="slots">');
    for (const path of ['/products/0', '/products/abc', '/planets/7', '/products/7/more'])
      expect((await page(reads, path, { cookie: 'am_session=1' })).text, path).toContain(loadingStatus);
    // Without a session the app asks the person to sign in: no outline of a page they will not see.
    expect((await page(reads, '/products/7')).text).toContain(loadingStatus);
    // A platform without entity reads, or not known to have them: the app's entity page is another.
    for (const entityReads of [false, null]) {
      const answer = await page(await proxyWith({}, probed(entityReads)), '/products/7', {
        cookie: 'am_session=1',
      });
      expect(answer.text, String(entityReads)).toContain(loadingStatus);
      expect(answer.text, String(entityReads)).not.toContain('name-placeholder');
    }
  });

  it('shows a Sign in pressed before the app loaded as on its way', async () => {
    const answer = await page(await proxyWith(), '/?sign-in=');
    expect(answer.text).toContain(landingHeading);
    expect(answer.text).toContain(
      '<button type="submit" name="sign-in" value="" disabled class="button primary large">Opening sign-in…</button>',
    );
    expect(answer.text).not.toMatch(signInButton);
  });

  it('does not wait for the platform: until it has answered, the page tells the browser to fetch the settings at once', async () => {
    // A probe that never answers: the platform is slow to reach when the proxy starts.
    const proxy = await proxyWith({}, () => new Promise<never>(() => {}));
    const answer = await send(proxy.port, { path: '/', headers: { accept: 'text/html' } });
    expect(answer.status).toBe(200);
    expect(inlineConfig(answer.text)).toBeNull();
    expect(answer.text).toContain(
      '<link rel="preload" href="/app-config.json" as="fetch" crossorigin="anonymous" />',
    );
    expect(answer.text).toContain(landingHeading);
  });

  it('F1: settings cannot end the data block or open a script, whatever they hold', async () => {
    const hostile = 'a</script><script>alert(1)</script><!--&\u2028';
    const answer = await page(await proxyWith({ OAUTH_CLIENT_ID: hostile }), '/');
    expect(inlineConfig(answer.text)?.clientId).toBe(hostile);
    expect(answer.text).not.toContain('<script>alert');
    expect(answer.text).not.toContain('<!--&');
    // One data block and the app's own module script: no other script element appeared.
    expect(answer.text.match(/<script\b/g)).toHaveLength(2);
  });

  it('is compressed for browsers that accept it, and answers 304 for the variant the browser holds', async () => {
    const proxy = await proxyWith();
    const plain = await page(proxy, '/');
    const br = await page(proxy, '/', { 'accept-encoding': 'gzip, deflate, br, zstd' });
    expect(br.headers['content-encoding']).toBe('br');
    expect(brotliDecompressSync(br.body).toString()).toBe(plain.text);
    expect(br.body.length).toBeLessThan(plain.body.length / 2);
    const gz = await page(proxy, '/', { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toBe(plain.text);

    const etag = String(plain.headers.etag);
    expect(etag).toMatch(/^"/);
    const again = await send(proxy.port, {
      path: '/',
      headers: { accept: 'text/html', 'if-none-match': etag },
    });
    expect(again.status).toBe(304);
    expect(again.body.length).toBe(0);
    // Signed in, the page is another: the browser's copy of the landing is not good for it.
    const signedIn = await send(proxy.port, {
      path: '/',
      headers: { accept: 'text/html', 'if-none-match': etag, cookie: 'am_session=1' },
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.text).toContain(loadingStatus);
  });

  it('never serves index.html as it is: its slots are always filled', async () => {
    const proxy = await proxyWith();
    for (const path of ['/index.html', '/index.html.br', '/index.html.gz']) {
      const answer = await send(proxy.port, { path, headers: { accept: '*/*' } });
      expect(answer.status, path).toBe(404);
    }
    const asPage = await page(proxy, '/index.html');
    expect(inlineConfig(asPage.text)).not.toBeNull();
  });
});

describe('without a built app', () => {
  it('answers GET / with 503 and says how to build it', async () => {
    const empty = await mkdtemp(join(tmpdir(), 'proxy-empty-'));
    const proxy = await startProxy(platform, { WEB_DIST_DIR: empty });
    try {
      for (const headers of [{ accept: '*/*' }, { accept: 'text/html' }]) {
        const answer = await send(proxy.port, { path: '/', headers });
        expect(answer.status).toBe(503);
        expect(answer.headers['content-type']).toMatch(/^text\/plain/);
        expect(answer.text).toContain('npm run build');
        expect(answer.text).not.toContain(empty);
      }
      const page = await send(proxy.port, { path: '/products/7', headers: { accept: 'text/html' } });
      expect(page.status).toBe(503);
      // The token endpoints work regardless: they do not need the built files.
      expect((await send(proxy.port, { path: '/app-config.json' })).status).toBe(200);
    } finally {
      await proxy.close();
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('picks up a build made after the start', async () => {
    const later = await mkdtemp(join(tmpdir(), 'proxy-later-'));
    const proxy = await startProxy(platform, { WEB_DIST_DIR: later });
    try {
      expect((await send(proxy.port, { path: '/' })).status).toBe(503);
      await writeFile(join(later, 'index.html'), indexHtml);
      const answer = await send(proxy.port, { path: '/', headers: { accept: 'text/html' } });
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(indexHtml);
    } finally {
      await proxy.close();
      await rm(later, { recursive: true, force: true });
    }
  });
});

describe('on https', () => {
  it('adds HSTS and upgrade-insecure-requests', async () => {
    const proxy = await startProxy(platform, { WEB_PUBLIC_URL: 'https://assets.example.com' });
    try {
      const answer = await send(proxy.port, { path: '/app-config.json' });
      expect(answer.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(csp(answer.headers['content-security-policy']).has('upgrade-insecure-requests')).toBe(true);
      expect(answer.json().redirectUri).toBe('https://assets.example.com/auth/callback');
    } finally {
      await proxy.close();
    }
  });
});
