import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildPlatform } from '../composition/app';
import { configFor } from '../config/env';
import { loadSigningKey } from './secrets';

const dirs: string[] = [];
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'signing-key-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('the signing key of several instances', () => {
  it('is SIGNING_KEY when given, the same whatever the data directory, and writes no file', () => {
    const key = randomBytes(32).toString('base64url');
    const [one, two] = [dataDir(), dataDir()];
    const keyOne = loadSigningKey(one, configFor({ SIGNING_KEY: key }).signingKey);
    const keyTwo = loadSigningKey(two, configFor({ SIGNING_KEY: key }).signingKey);
    expect(keyOne.toString('base64url')).toBe(key);
    expect(keyTwo.equals(keyOne)).toBe(true);
    expect(existsSync(join(one, 'secrets.json'))).toBe(false);
  });

  it('is generated per data directory without it, and kept across restarts', () => {
    const [one, two] = [dataDir(), dataDir()];
    const first = loadSigningKey(one, configFor({}).signingKey);
    expect(loadSigningKey(one).equals(first)).toBe(true);
    expect(loadSigningKey(two).equals(first)).toBe(false);
  });

  it('stops the start on a key that is short or not base64url, naming the variable', () => {
    expect(() => configFor({ SIGNING_KEY: randomBytes(16).toString('base64url') })).toThrow(
      /SIGNING_KEY: must decode to at least 32 bytes/,
    );
    expect(() => configFor({ SIGNING_KEY: `${randomBytes(32).toString('base64')}+/=` })).toThrow(
      /SIGNING_KEY: must be base64url/,
    );
  });

  it('is required to start a server on PostgreSQL or Redis, saying how to make one', async () => {
    const scaledBy: Record<string, string>[] = [
      { DATABASE_URL: 'postgres://postgres@127.0.0.1:1/unused' },
      { REDIS_URL: 'redis://127.0.0.1:1' },
    ];
    for (const scaled of scaledBy) {
      const config = configFor({ DATA_DIR: dataDir(), ...scaled });
      // Refused before any connection is tried: nothing listens on port 1.
      await expect(buildPlatform(config, { logger: false })).rejects.toThrow(
        /SIGNING_KEY: required when DATABASE_URL or REDIS_URL is set .*randomBytes\(32\)\.toString\('base64url'\)/,
      );
    }
  });

  it('stops the start on a REDIS_URL that is not a Redis URL', () => {
    expect(() => configFor({ REDIS_URL: 'http://127.0.0.1:6379' })).toThrow(/REDIS_URL: must be a redis/);
    expect(configFor({ REDIS_URL: 'redis://127.0.0.1:6379/2' }).redis).toEqual({
      url: 'redis://127.0.0.1:6379/2',
      keyPrefix: 'am:',
    });
    expect(configFor({}).redis).toBeUndefined();
  });
});
