import { existsSync } from 'node:fs';
import { chromium, defineConfig, devices } from '@playwright/test';

/** Playwright's own Chromium when installed, else Debian's (or CHROMIUM_PATH): nothing is downloaded. */
function chromiumExecutable(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  if (existsSync(chromium.executablePath())) return undefined;
  return '/usr/bin/chromium';
}

export const e2ePorts = { platform: 4100 };
const platformUrl = `http://127.0.0.1:${e2ePorts.platform}`;

export default defineConfig({
  testDir: 'e2e',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: true,
  reporter: process.env.CI ? 'list' : [['list']],
  timeout: 30_000,
  use: {
    ...devices['Desktop Chrome'],
    baseURL: platformUrl,
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
  webServer: [
    {
      // A fresh data directory every run, seeded with the demo data.
      command: 'rm -rf .tmp/e2e-platform && node --import tsx src/platform/main.ts',
      url: `${platformUrl}/healthz`,
      reuseExistingServer: false,
      timeout: 60_000,
      env: {
        DATA_DIR: '.tmp/e2e-platform',
        PLATFORM_PORT: String(e2ePorts.platform),
        PLATFORM_PUBLIC_URL: platformUrl,
        DEMO_SEED: '1',
        LOG_LEVEL: 'warn',
      },
    },
  ],
});
