import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect, signIn, test } from './support/app';
import { csvFile } from './support/files';
import { throttleUploads } from './support/page-parts';

/**
 * H7 end to end: the platform dies in the middle of an upload, comes back, and the person's Retry
 * (which keeps the upload's Idempotency-Key) makes the file, once. This spec runs a platform and a
 * proxy of its own, as child processes, so that it can kill and restart the platform.
 */
const offset = Number(process.env.E2E_PORT_OFFSET ?? 0);
const ports = { platform: 4100 + offset + 50, web: 4100 + offset + 51 };
const platformUrl = `http://127.0.0.1:${ports.platform}`;
const webUrl = `http://127.0.0.1:${ports.web}`;
const dataDir = '.tmp/e2e-upload-retry';
const logDir = '.tmp/e2e-upload-retry-logs';

const platformEnv = {
  DATA_DIR: dataDir,
  PLATFORM_PORT: String(ports.platform),
  PLATFORM_PUBLIC_URL: platformUrl,
  WEB_PUBLIC_URL: webUrl,
  DEMO_SEED: '1',
  TOKEN_RATE_LIMIT: '1000',
  LOG_LEVEL: 'warn',
};

let platform: ChildProcess | undefined;
let proxy: ChildProcess | undefined;

async function waitFor(url: string) {
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not answer`);
}

function start(entry: string, env: Record<string, string>, log: string) {
  const out = openSync(join(logDir, log), 'a');
  return spawn(process.execPath, ['--import', 'tsx', entry], {
    env: { ...process.env, ...env },
    stdio: ['ignore', out, out],
  });
}

async function startPlatform() {
  platform = start('src/platform/main.ts', platformEnv, 'platform.log');
  await waitFor(`${platformUrl}/healthz`);
}

async function killPlatform() {
  const child = platform!;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

test.beforeAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(logDir, { recursive: true });
  await startPlatform();
  proxy = start(
    'src/proxy/main.ts',
    {
      WEB_PORT: String(ports.web),
      WEB_PUBLIC_URL: webUrl,
      PLATFORM_BASE_URL: platformUrl,
      OAUTH_CLIENT_SECRET_FILE: `${dataDir}/web-client.json`,
      TOKEN_RATE_LIMIT: '1000',
      LOG_LEVEL: 'warn',
      // What this test is about is the spec's POST and its Idempotency-Key after a crash; a 12 MB
      // file would go by tus on our platform (a tus upload across a restart: resumable-restart.test.ts).
      PLATFORM_CAPABILITIES: 'resumable-uploads=off',
    },
    'proxy.log',
  );
  await waitFor(`${webUrl}/app-config.json`);
});

test.afterAll(() => {
  platform?.kill('SIGKILL');
  proxy?.kill('SIGKILL');
});

const stagingFiles = () => {
  const tmp = join(dataDir, 'blobs', 'tmp');
  return existsSync(tmp) ? readdirSync(tmp).length : 0;
};

test('H7 an upload cut off by a platform crash succeeds on Retry after the restart, once', async ({
  page,
}) => {
  test.setTimeout(180_000);
  await signIn(page, 'issuer@demo.test', undefined, { webUrl, platformUrl });
  await page.goto(`${webUrl}/products/1`);
  const slot = page.getByRole('region', { name: 'Business plan', exact: true });
  await expect(slot).toBeVisible();

  // 12 MB at 1 MB/s: the platform is writing the file for about twelve seconds.
  const base = csvFile('business-plan.csv');
  const file = { ...base, buffer: Buffer.concat([base.buffer, Buffer.alloc(12 * 1024 * 1024, '7')]) };
  await throttleUploads(page, 1024 * 1024);
  await slot.getByTestId('input-business_plan').setInputFiles(file);
  await expect(slot.getByText(/^Sending \d+%$/)).toBeVisible();
  await expect.poll(stagingFiles, { timeout: 30_000 }).toBe(1);

  await killPlatform();
  await expect(slot.getByText('Failed', { exact: true })).toBeVisible({ timeout: 30_000 });

  await startPlatform();
  await throttleUploads(page, -1);
  await slot.getByRole('button', { name: 'Retry business-plan.csv' }).click();
  // Done: the row gives way to one line that counts it.
  await expect(slot.getByText('1 file uploaded')).toBeVisible({ timeout: 60_000 });

  await page.reload();
  const cards = slot
    .getByRole('list', { name: 'Files' })
    .getByRole('listitem')
    .filter({ hasText: 'business-plan.csv' });
  await expect(cards).toHaveCount(1);
});
