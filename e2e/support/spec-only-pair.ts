import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startSpecOnlyPlatform, type SpecOnlyPlatformOptions } from './spec-only-platform';

/**
 * The web app as it would run against another company's platform: a spec-only platform (in this
 * process) and our proxy (its own process, started with node, serving the built app) in front of it.
 */
export interface SpecOnlyPair {
  webUrl: string;
  platformUrl: string;
  platform: Awaited<ReturnType<typeof startSpecOnlyPlatform>>;
  close(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });

export async function startSpecOnlyPair(
  platformOptions: Omit<SpecOnlyPlatformOptions, 'clients'> = {},
  proxyEnv: Record<string, string> = {},
): Promise<SpecOnlyPair> {
  const webPort = await freePort();
  const webUrl = `http://127.0.0.1:${webPort}`;
  const secret = randomBytes(24).toString('base64url');
  const platform = await startSpecOnlyPlatform({
    corsOrigins: [webUrl],
    ...platformOptions,
    clients: [
      { client_id: 'asset-manager', client_secret: secret, redirect_uris: [`${webUrl}/auth/callback`] },
    ],
  });
  const proxy: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'src/proxy/main.ts'], {
    env: {
      ...process.env,
      WEB_PORT: String(webPort),
      WEB_PUBLIC_URL: webUrl,
      WEB_DIST_DIR: 'dist',
      PLATFORM_BASE_URL: platform.url,
      OAUTH_CLIENT_ID: 'asset-manager',
      OAUTH_CLIENT_SECRET: secret,
      LOG_LEVEL: 'warn',
      ...proxyEnv,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const close = async () => {
    proxy.kill();
    await platform.close();
  };
  // Ready once it serves the app's settings (after its probe of the platform).
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ready = await fetch(`${webUrl}/app-config.json`).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline || proxy.exitCode !== null) {
      await close();
      throw new Error('the proxy in front of the spec-only platform did not start');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { webUrl, platformUrl: platform.url, platform, close };
}
