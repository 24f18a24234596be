import { existsSync } from 'node:fs';
import { chromium, defineConfig, devices } from '@playwright/test';
import {
  accessTokenTtlSeconds,
  e2ePorts,
  platformDataDir,
  platformUrl,
  proxyLogFile,
  webUrl,
} from './e2e/support/urls';

/** Playwright's own Chromium when installed, else Debian's (or CHROMIUM_PATH): nothing is downloaded. */
function chromiumExecutable(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (existsSync(chromium.executablePath())) return undefined;
  return '/usr/bin/chromium';
}

export default defineConfig({
  testDir: 'e2e',
  // e2e/support holds helpers and their own Vitest tests (*.test.ts), not journeys.
  testIgnore: 'support/**',
  // Tests that change data have people of their own (e2e/support/fixtures.ts), so files may run side by
  // side (E2E_WORKERS); the tests of one file stay in order, as some share a server started in beforeAll.
  // One by default: on a busy 2-core machine two were no faster (docs/development.md).
  fullyParallel: false,
  workers: Number(process.env.E2E_WORKERS ?? 1),
  retries: 0,
  forbidOnly: true,
  reporter: 'list',
  // Generous for a busy 2-core machine: a PDF upload waits for its thumbnail, axe takes seconds a page.
  timeout: 90_000,
  expect: { timeout: 20_000 },
  use: {
    ...devices['Desktop Chrome'],
    baseURL: webUrl,
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: chromiumExecutable(),
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  // Started in order: the proxy reads the web client's secret that the platform's demo seed writes.
  // `npm run test:e2e` builds the app first; the proxy serves that build.
  webServer: [
    {
      command: `rm -rf ${platformDataDir} && node --import tsx src/platform/main.ts`,
      url: `${platformUrl}/healthz`,
      reuseExistingServer: false,
      // node, tsx and the program loading (and the demo seed hashing passwords) on a busy machine.
      timeout: 120_000,
      env: {
        DATA_DIR: platformDataDir,
        PLATFORM_PORT: String(e2ePorts.platform),
        PLATFORM_PUBLIC_URL: platformUrl,
        WEB_PUBLIC_URL: webUrl,
        DEMO_SEED: '1',
        ACCESS_TOKEN_TTL: String(accessTokenTtlSeconds),
        // The proxy and the tests all come from 127.0.0.1: the platform's per-address token budget is shared.
        TOKEN_RATE_LIMIT: '1000',
        // Thumbnails are made on a busy machine too: renders compete for the CPU as equals, with a
        // time limit far above what a page of the test PDFs takes.
        PDF_THUMBNAIL_LOW_PRIORITY: '0',
        PDF_THUMBNAIL_TIMEOUT_MS: '60000',
        LOG_LEVEL: 'warn',
      },
    },
    {
      // Debug level on purpose: P1 checks that even the most talkative log never carries the secret.
      command: `node --import tsx src/proxy/main.ts > ${proxyLogFile} 2>&1`,
      url: `${webUrl}/app-config.json`,
      reuseExistingServer: false,
      timeout: 120_000,
      env: {
        WEB_PORT: String(e2ePorts.web),
        WEB_PUBLIC_URL: webUrl,
        PLATFORM_BASE_URL: platformUrl,
        OAUTH_CLIENT_SECRET_FILE: `${platformDataDir}/web-client.json`,
        TOKEN_RATE_LIMIT: '1000',
        LOG_LEVEL: 'debug',
      },
    },
  ],
});
