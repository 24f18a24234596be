import { join, resolve } from 'node:path';
import { createSupervisor } from './supervisor';
import { buildWebAppIfNeeded } from './web-build';

/**
 * `npm start` (and `npm run dev` with `--dev`): the whole product on one machine. The platform starts
 * first with demo data; the proxy starts once the platform answers, reading the web client's secret from
 * the platform's data directory; each program is its own process talking real HTTP. Ctrl-C stops all.
 */
const dev = process.argv.includes('--dev');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DEMO_SEED: process.env.DEMO_SEED ?? '1',
  // The terminal shows the address and any trouble; set LOG_LEVEL=info to see every request.
  LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
};
const dataDir = env.DATA_DIR ?? './data';
const platformHost = env.PLATFORM_HOST ?? '127.0.0.1';
const platformPort = env.PLATFORM_PORT ?? '4000';
const platformUrl = env.PLATFORM_PUBLIC_URL ?? `http://${platformHost}:${platformPort}`;
const webHost = env.WEB_HOST ?? '127.0.0.1';
const webPort = Number(env.WEB_PORT ?? '5173');
const webUrl = env.WEB_PUBLIC_URL ?? `http://${webHost}:${webPort}`;

// The platform must know the app's address (its redirect URI and CORS origin), the proxy the platform's.
env.WEB_PUBLIC_URL = webUrl;
env.PLATFORM_PUBLIC_URL = platformUrl;
env.PLATFORM_BASE_URL ??= platformUrl;
if (!env.OAUTH_CLIENT_SECRET && !env.OAUTH_CLIENT_SECRET_FILE) {
  env.OAUTH_CLIENT_SECRET_FILE = join(dataDir, 'web-client.json');
}

const programs = createSupervisor(env);

async function main() {
  if (!dev) buildWebAppIfNeeded();
  programs.start({ name: 'platform', args: ['--import', 'tsx', 'src/platform/main.ts'], essential: true });
  await programs.waitFor(`${platformUrl}/healthz`, 'The platform');

  if (dev) {
    // Vite serves the app on the web port and forwards /oauth and /app-config.json to the proxy beside it.
    const proxyPort = String(webPort + 1);
    programs.start({
      name: 'proxy',
      args: ['--import', 'tsx', 'src/proxy/main.ts'],
      env: { WEB_PORT: proxyPort },
      essential: true,
    });
    await programs.waitFor(`http://${webHost}:${proxyPort}/app-config.json`, 'The proxy');
    programs.start({
      name: 'vite',
      args: [resolve('node_modules/vite/bin/vite.js')],
      env: { WEB_PORT: String(webPort), DEV_PROXY_URL: `http://${webHost}:${proxyPort}` },
      essential: true,
    });
  } else {
    programs.start({ name: 'proxy', args: ['--import', 'tsx', 'src/proxy/main.ts'], essential: true });
  }
  await programs.waitFor(`${webUrl}/app-config.json`, 'The web app');
  if (programs.isStopping()) return;

  console.log(`
  Asset Manager is running: open ${webUrl}
  Platform:  ${platformUrl}   (API description: ${platformUrl}/v2/core/openapi.json)
  Demo accounts (password: ${env.DEMO_PASSWORD ?? 'demo-password'}):
    investor@demo.test   issuer@demo.test   admin@demo.test
  Press Ctrl-C to stop.
`);
}

void main();
