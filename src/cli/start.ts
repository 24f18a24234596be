import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * `npm start` (and `npm run dev` with `--dev`): the whole product on one machine. The platform starts
 * first with demo data; the proxy starts once the platform answers, reading the web client's secret from
 * the platform's data directory; each program is its own process talking real HTTP. Ctrl-C stops all.
 */
const dev = process.argv.includes('--dev');
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DEMO_SEED: process.env.DEMO_SEED ?? '1',
  // The terminal shows the address and any trouble; set LOG_LEVEL=debug to see every request.
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

/** The newest modification time under the app's sources, to tell whether dist/ is out of date. */
function newestSource(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(path).map((name) => newestSource(join(path, name))));
}

function buildWebAppIfNeeded() {
  const index = resolve('dist/index.html');
  const sources = ['src/web', 'src/shared', 'public', 'index.html', 'vite.config.ts'].filter(existsSync);
  if (existsSync(index) && statSync(index).mtimeMs >= Math.max(...sources.map(newestSource))) return;
  console.log('Building the web app…');
  const build = spawnSync(process.execPath, [resolve('node_modules/vite/bin/vite.js'), 'build'], {
    stdio: 'inherit',
  });
  if (build.status !== 0) {
    console.error('The web app did not build; see the messages above.');
    process.exit(build.status ?? 1);
  }
}

const children: ChildProcess[] = [];
let stopping = false;

function run(name: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, args, { env: { ...env, ...extraEnv }, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} stopped (${signal ?? `exit ${code}`}); stopping everything.`);
      stop(code || 1);
    }
  });
  children.push(child);
}

function stop(exitCode = 0) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  Promise.all(
    children.map(
      (c) =>
        new Promise((done) =>
          c.exitCode === null && c.signalCode === null ? c.once('exit', done) : done(null),
        ),
    ),
  ).then(() => process.exit(exitCode));
}
process.once('SIGINT', () => stop());
process.once('SIGTERM', () => stop());

async function waitFor(url: string, what: string) {
  for (let i = 0; i < 300; i++) {
    if (stopping) return;
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((done) => setTimeout(done, 200));
  }
  console.error(`${what} did not start within a minute.`);
  stop(1);
}

async function main() {
  if (!dev) buildWebAppIfNeeded();
  run('platform', ['--import', 'tsx', 'src/platform/main.ts']);
  await waitFor(`${platformUrl}/healthz`, 'The platform');

  if (dev) {
    // Vite serves the app on the web port and forwards /oauth and /app-config.json to the proxy beside it.
    const proxyPort = String(webPort + 1);
    run('proxy', ['--import', 'tsx', 'src/proxy/main.ts'], { WEB_PORT: proxyPort });
    await waitFor(`http://${webHost}:${proxyPort}/app-config.json`, 'The proxy');
    run('vite', [resolve('node_modules/vite/bin/vite.js')], {
      WEB_PORT: String(webPort),
      DEV_PROXY_URL: `http://${webHost}:${proxyPort}`,
    });
  } else {
    run('proxy', ['--import', 'tsx', 'src/proxy/main.ts']);
  }
  await waitFor(`${webUrl}/app-config.json`, 'The web app');
  if (stopping) return;

  console.log(`
  Asset Manager is running: open ${webUrl}
  Platform:  ${platformUrl}   (API description: ${platformUrl}/v2/core/openapi.json)
  Demo accounts (password: ${env.DEMO_PASSWORD ?? 'demo-password'}):
    investor@demo.test   issuer@demo.test   admin@demo.test
  Press Ctrl-C to stop.
`);
}

void main();
