import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configFor, loadConfig } from './env';

const secret = 'the-client-secret-0123456789';

describe('proxy configuration', () => {
  it('has the documented defaults', () => {
    const config = configFor({ OAUTH_CLIENT_SECRET: secret });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 5173,
      publicOrigin: 'http://127.0.0.1:5173',
      redirectUri: 'http://127.0.0.1:5173/auth/callback',
      distDir: resolve('./dist'),
      platformBaseUrl: 'http://127.0.0.1:4000',
      platformAuthUrl: 'http://127.0.0.1:4000',
      clientId: 'asset-manager',
      scope: 'full',
      tokenRateLimit: 30,
      platformTimeoutMs: 10_000,
      logLevel: 'info',
    });
    expect(config.clientSecret.reveal()).toBe(secret);
  });

  it('normalizes addresses: trailing slashes go, a base path stays', () => {
    const config = configFor({
      OAUTH_CLIENT_SECRET: secret,
      WEB_PUBLIC_URL: 'https://assets.example.com/',
      PLATFORM_BASE_URL: 'https://api.example.com/platform/',
      PLATFORM_AUTH_URL: 'https://login.example.com',
    });
    expect(config.publicOrigin).toBe('https://assets.example.com');
    expect(config.redirectUri).toBe('https://assets.example.com/auth/callback');
    expect(config.platformBaseUrl).toBe('https://api.example.com/platform');
    expect(config.platformAuthUrl).toBe('https://login.example.com');
  });

  it('stops with the list of bad variables, without printing the secret', () => {
    let message = '';
    try {
      loadConfig({
        OAUTH_CLIENT_SECRET: secret,
        WEB_PORT: 'eighty',
        WEB_PUBLIC_URL: 'http://127.0.0.1:5173/app',
        PLATFORM_BASE_URL: 'ftp://platform',
        OAUTH_SCOPE: 'admin',
        TOKEN_RATE_LIMIT: '0',
      });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^Invalid proxy configuration:/);
    for (const name of [
      'WEB_PORT',
      'WEB_PUBLIC_URL',
      'PLATFORM_BASE_URL',
      'OAUTH_SCOPE',
      'TOKEN_RATE_LIMIT',
    ]) {
      expect(message).toContain(name);
    }
    expect(message).not.toContain(secret);
  });

  it('requires the client secret, and lists it with the other bad variables', () => {
    expect(() => loadConfig({})).toThrow(/OAUTH_CLIENT_SECRET: is required/);
    expect(() => loadConfig({ OAUTH_CLIENT_SECRET: '' })).toThrow(/OAUTH_CLIENT_SECRET: is required/);
    expect(() => loadConfig({ WEB_PORT: 'x' })).toThrow(/WEB_PORT: .*\n\s+OAUTH_CLIENT_SECRET: is required/);
  });

  it('never prints the secret when the config is logged or serialized (P1)', () => {
    const config = configFor({ OAUTH_CLIENT_SECRET: secret });
    expect(JSON.stringify(config)).not.toContain(secret);
    expect(inspect(config, { depth: 5 })).not.toContain(secret);
    expect(`${config.clientSecret}`).toBe('[redacted]');
  });

  describe('OAUTH_CLIENT_SECRET_FILE', () => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'proxy-env-'));
    });
    afterAll(async () => rm(dir, { recursive: true, force: true }));

    it("reads the platform's web-client.json or a bare secret", async () => {
      const json = join(dir, 'web-client.json');
      await writeFile(json, JSON.stringify({ client_id: 'asset-manager', client_secret: secret }));
      expect(configFor({ OAUTH_CLIENT_SECRET_FILE: json }).clientSecret.reveal()).toBe(secret);

      const bare = join(dir, 'secret.txt');
      await writeFile(bare, `${secret}\n`);
      expect(configFor({ OAUTH_CLIENT_SECRET_FILE: bare }).clientSecret.reveal()).toBe(secret);
    });

    it('refuses a missing file, a file without a secret, and both variables at once', async () => {
      expect(() => configFor({ OAUTH_CLIENT_SECRET_FILE: join(dir, 'nope.json') })).toThrow(
        /OAUTH_CLIENT_SECRET_FILE: cannot read .*ENOENT/,
      );
      const broken = join(dir, 'broken.json');
      await writeFile(broken, `{"client_secret": "${secret}"`);
      const error = (() => {
        try {
          configFor({ OAUTH_CLIENT_SECRET_FILE: broken });
          return '';
        } catch (e) {
          return (e as Error).message;
        }
      })();
      expect(error).toMatch(/without a client_secret/);
      expect(error).not.toContain(secret);
      expect(() => configFor({ OAUTH_CLIENT_SECRET: secret, OAUTH_CLIENT_SECRET_FILE: broken })).toThrow(
        /not both/,
      );
    });
  });
});
