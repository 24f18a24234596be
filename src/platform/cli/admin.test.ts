import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlatform } from '../composition/app';
import { configFor } from '../config/env';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'platform-admin-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/**
 * Runs `npm run platform -- <args>` the way an admin would, with node itself (`npm run platform` is
 * tsx, and npm adds a process and its banner).
 */
const platformCommand = (args: string[], env: Record<string, string> = {}) =>
  run(process.execPath, ['--import', 'tsx', 'src/platform/main.ts', ...args], {
    env: { ...process.env, DATA_DIR: dataDir, ...env },
  });

// Each command is a node process that loads tsx and the platform: a second on an idle machine,
// tens of seconds on a busy one.
describe('admin commands', { timeout: 90_000 }, () => {
  it('clients add registers a client and prints its credentials as the last line', async () => {
    const { stdout } = await platformCommand([
      'clients',
      'add',
      '--name',
      'Partner App',
      '--redirect-uri',
      'https://partner.test/cb',
      '--redirect-uri',
      'http://127.0.0.1:7000/cb',
    ]);
    const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      client_id: string;
      client_secret: string;
    };
    expect(last.client_id).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(last.client_secret).toMatch(/^[A-Za-z0-9_-]{43}$/);

    // The client works: the platform shows its name on the sign-in page for a registered redirect URI.
    const app = await buildPlatform(configFor({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { logger: false });
    const page = await app.inject({
      url: `/auth/login/oauth/authorize?client_id=${last.client_id}&redirect_uri=${encodeURIComponent('http://127.0.0.1:7000/cb')}&state=s&scope=full`,
    });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('Partner App');
    await app.close();
  });

  it('users add adds a user who can sign in', async () => {
    const { stdout } = await platformCommand([
      'users',
      'add',
      '--email',
      'New.Person@Example.test',
      '--role',
      'issuer',
      '--password',
      'a-long-password',
    ]);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({
      email: 'new.person@example.test',
      role: 'issuer',
    });
  });

  it('users add opens an accreditation for a new investor, waiting for review', async () => {
    const { stdout } = await platformCommand([
      'users',
      'add',
      '--email',
      'ina@example.test',
      '--role',
      'investor',
      '--name',
      'Ina Vestor',
      '--password',
      'a-long-password',
    ]);
    expect(JSON.parse(stdout.trim().split('\n').at(-1)!)).toMatchObject({
      email: 'ina@example.test',
      role: 'investor',
      accreditation: { id: expect.any(Number), name: 'Accreditation of Ina Vestor' },
    });
    // A child program on a busy machine: starting tsx alone can take seconds.
  }, 60_000);

  it('users add --product gives a new issuer products, each with an investment and a team member', async () => {
    const { stdout } = await platformCommand([
      'users',
      'add',
      '--email',
      'isa@example.test',
      '--role',
      'issuer',
      '--password',
      'a-long-password',
      '--product',
      'Wind Park II',
      '--product',
      'Mill Lofts',
    ]);
    const added = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      products: { id: number; investment: { id: number }; team_member: { id: number } }[];
    };
    expect(added).toMatchObject({
      email: 'isa@example.test',
      products: [
        {
          name: 'Wind Park II',
          investment: { id: expect.any(Number) },
          team_member: { id: expect.any(Number) },
        },
        {
          name: 'Mill Lofts',
          investment: { id: expect.any(Number) },
          team_member: { id: expect.any(Number) },
        },
      ],
    });
    expect(new Set(added.products.map((product) => product.id)).size).toBe(2);
    // Only issuers own products.
    await expect(
      platformCommand([
        'users',
        'add',
        '--email',
        'ivo@example.test',
        '--role',
        'investor',
        '--password',
        'a-long-password',
        '--product',
        'Not Theirs',
      ]),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('Usage:') });
  }, 60_000);

  it('refuses bad arguments with the usage and a non-zero exit', async () => {
    await expect(
      platformCommand(['users', 'add', '--email', 'x@y.test', '--role', 'king', '--password', 'long-enough']),
    ).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('Usage:'),
    });
    await expect(
      platformCommand(['clients', 'add', '--name', 'X', '--redirect-uri', 'not a url']),
    ).rejects.toMatchObject({ code: 1 });
  });

  it('refuses a bad configuration with the list of bad variables', async () => {
    await expect(platformCommand([], { PLATFORM_PORT: 'abc', ACCESS_TOKEN_TTL: '-5' })).rejects.toMatchObject(
      {
        code: 1,
        stderr: expect.stringMatching(
          /PLATFORM_PORT[\s\S]*ACCESS_TOKEN_TTL|ACCESS_TOKEN_TTL[\s\S]*PLATFORM_PORT/,
        ),
      },
    );
  });
});

describe('demo seed', () => {
  it('writes the web client secret to DATA_DIR/web-client.json with mode 0600, once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'platform-seed-'));
    try {
      const config = configFor({
        DATA_DIR: dir,
        DEMO_SEED: '1',
        LOG_LEVEL: 'silent',
        WEB_PUBLIC_URL: 'http://127.0.0.1:6000',
      });
      await (await buildPlatform(config, { logger: false })).close();
      const file = join(dir, 'web-client.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const client = JSON.parse(readFileSync(file, 'utf8')) as {
        client_id: string;
        client_secret: string;
        redirect_uris: string[];
      };
      expect(client.client_id).toBe('asset-manager');
      expect(client.redirect_uris).toEqual(['http://127.0.0.1:6000/auth/callback']);
      // A second start keeps the data (and the secret) as they are.
      await (await buildPlatform(config, { logger: false })).close();
      expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(client);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
