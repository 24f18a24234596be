import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { meSchema } from '../../shared/api/me';
import { freePort } from '../testing/platform-server';
import { spawnPlatform } from '../testing/child-platform';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'platform-curl-'));
let url = '';
let server: ChildProcess;

// The platform with DEMO_SEED=1 on an empty data directory, as docs/development.md tells people to run it
// (`npm run platform`; started here with node itself, as every child program of the tests is).
beforeAll(async () => {
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  server = await spawnPlatform({
    DATA_DIR: dataDir,
    DEMO_SEED: '1',
    PLATFORM_PORT: String(port),
    LOG_LEVEL: 'warn',
  });
}, 90_000);
afterAll(() => {
  server?.kill('SIGTERM');
  rmSync(dataDir, { recursive: true, force: true });
});

it('lets curl alone sign in as investor@demo.test and read /v2/core/me', async () => {
  const { stdout } = await run('bash', ['scripts/curl-sign-in.sh', 'investor@demo.test', 'demo-password'], {
    env: { ...process.env, PLATFORM_URL: url, DATA_DIR: dataDir },
  });
  const me = meSchema.parse(JSON.parse(stdout));
  expect(me.user).toMatchObject({ email: 'investor@demo.test', role: 'investor' });
  expect(me.entities.map((e) => e.type)).toContain('Accreditation');
});
