/**
 * What the benchmarks in a browser start: the app built, a platform with the demo data and the proxy
 * on ports of their own (moved by `E2E_PORT_OFFSET`, as the end-to-end tests'), and Chromium.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { chromium, type Browser } from '@playwright/test';
import { waitFor } from './common';

export interface WebStack {
  browser: Browser;
  platformUrl: string;
  webUrl: string;
  /** Everything stopped, its data removed. */
  close(): Promise<void>;
}

/** `vite build` into dist/, as `npm start` serves it. */
export function buildWebApp() {
  const build = spawnSync(process.execPath, [resolve('node_modules/vite/bin/vite.js'), 'build'], {
    stdio: 'ignore',
  });
  if (build.status !== 0) throw new Error('vite build failed');
}

/**
 * The platform (demo data, no token rate limit: the rounds sign in often) on `firstPort`, the proxy on
 * the next, and Chromium (Playwright's, or Debian's). Waits as long as a busy machine needs to start
 * them: the figures are meant to be read beside the load average.
 */
export async function startWebStack(name: string, firstPort: number): Promise<WebStack> {
  const work = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  const children: ChildProcess[] = [];
  const offset = Number(process.env.E2E_PORT_OFFSET ?? 0);
  const platformPort = String(firstPort + offset);
  const webPort = String(firstPort + 1 + offset);
  const platformUrl = `http://127.0.0.1:${platformPort}`;
  const webUrl = `http://127.0.0.1:${webPort}`;
  const dataDir = join(work, 'data');
  const start = (entry: string, env: Record<string, string>) =>
    children.push(
      spawn(process.execPath, ['--import', 'tsx', entry], {
        env: { ...process.env, LOG_LEVEL: 'warn', ...env },
        stdio: 'ignore',
      }),
    );
  const browser = await chromium.launch({
    executablePath:
      process.env.CHROMIUM_PATH ?? (existsSync(chromium.executablePath()) ? undefined : '/usr/bin/chromium'),
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const close = async () => {
    await browser.close();
    for (const child of children) child.kill('SIGTERM');
    await sleep(200);
    rmSync(work, { recursive: true, force: true });
  };
  try {
    start('src/platform/main.ts', {
      DATA_DIR: dataDir,
      DEMO_SEED: '1',
      PLATFORM_PORT: platformPort,
      WEB_PUBLIC_URL: webUrl,
      TOKEN_RATE_LIMIT: '100000',
    });
    await waitFor(`${platformUrl}/healthz`, 120);
    start('src/proxy/main.ts', {
      WEB_PORT: webPort,
      WEB_PUBLIC_URL: webUrl,
      PLATFORM_BASE_URL: platformUrl,
      OAUTH_CLIENT_SECRET_FILE: join(dataDir, 'web-client.json'),
      TOKEN_RATE_LIMIT: '100000',
    });
    await waitFor(`${webUrl}/app-config.json`, 120);
  } catch (error) {
    await close();
    throw error;
  }
  return { browser, platformUrl, webUrl, close };
}
