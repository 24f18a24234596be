import { spawn, type ChildProcess } from 'node:child_process';

/**
 * `npm start`: runs the product with demo data. For now that is the platform alone; the proxy and
 * the web app join it here. Each program runs as its own process, talking over real HTTP, and
 * Ctrl-C stops them all.
 */
const env: NodeJS.ProcessEnv = { ...process.env, DEMO_SEED: process.env.DEMO_SEED ?? '1' };
const host = env.PLATFORM_HOST ?? '127.0.0.1';
const port = env.PLATFORM_PORT ?? '4000';
const platformUrl = env.PLATFORM_PUBLIC_URL ?? `http://${host}:${port}`;

const children: ChildProcess[] = [];
function run(name: string, args: string[]) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { env, stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`${name} stopped (${signal ?? `exit ${code}`}); stopping everything.`);
      stop(code ?? 1);
    }
  });
  children.push(child);
}

let stopping = false;
function stop(exitCode = 0) {
  stopping = true;
  for (const child of children) if (child.exitCode === null) child.kill('SIGTERM');
  Promise.all(
    children.map(
      (c) => new Promise((resolve) => (c.exitCode === null ? c.once('exit', resolve) : resolve(null))),
    ),
  ).then(() => process.exit(exitCode));
}
process.once('SIGINT', () => stop());
process.once('SIGTERM', () => stop());

run('platform', ['src/platform/main.ts']);

async function announce() {
  for (let i = 0; i < 150; i++) {
    if (
      await fetch(`${platformUrl}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      break;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  console.log(`
  Platform:  ${platformUrl}   (OpenAPI: ${platformUrl}/v2/core/openapi.json)
  Demo accounts (password: ${env.DEMO_PASSWORD ?? 'demo-password'}):
    investor@demo.test   issuer@demo.test   admin@demo.test
  Press Ctrl-C to stop.
`);
}
void announce();
