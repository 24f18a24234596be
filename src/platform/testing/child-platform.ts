import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { configFor, type PlatformConfig } from '../config/env';
import { testBackend, type TestBackend } from './backends';
import { removeRedisKeys } from './redis';
import { freePort } from './platform-server';

/** How long a platform process may take to answer /healthz: node, tsx and the platform loading on a busy machine. */
const startDeadlineMs = 60_000;

/** Waits until a platform answers /healthz; fails at once when `child` exits first. */
export async function waitForHealth(url: string, child?: ChildProcess) {
  const deadline = Date.now() + startDeadlineMs;
  for (;;) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    if (child && child.exitCode !== null) throw new Error(`${url}: the platform exited (${child.exitCode})`);
    if (Date.now() > deadline) throw new Error(`${url} did not start within ${startDeadlineMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * The platform as its own process, the way people run it (`npm run platform` is `tsx
 * src/platform/main.ts`), for tests that need to stop or kill it. Started with node itself: npm
 * would add a process of its own, seconds of start-up on a busy machine, and a signal it may not pass on.
 */
export async function spawnPlatform(
  env: Record<string, string>,
  onLog?: (line: string) => void,
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/platform/main.ts'], {
    env: { ...process.env, ...env },
    stdio: ['ignore', onLog ? 'pipe' : 'ignore', 'ignore'],
  });
  if (onLog) createInterface({ input: child.stdout! }).on('line', onLog);
  try {
    await waitForHealth(`http://127.0.0.1:${env.PLATFORM_PORT}`, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return child;
}

export interface ChildPlatform {
  url: string;
  webClient: { client_id: string; client_secret: string };
}

/**
 * A platform process with the demo data that a test starts, kills and starts again on the same data
 * (crash recovery), on the backend the test run uses (testing/backends.ts). `config` is the
 * platform's configuration, to read its database and files as another program would.
 */
export function childPlatformFixture(dataDirPrefix: string, env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), dataDirPrefix));
  /** The platform's log lines (pino JSON, at its LOG_LEVEL), every start's. */
  const logs: string[] = [];
  let backend: TestBackend | undefined;
  let port: number | undefined;
  let child: ChildProcess | undefined;
  const prepare = async () => {
    backend ??= await testBackend();
    port ??= await freePort();
    return { backend, port };
  };
  return {
    logs,
    /** The process id of the platform started last (for its memory in /proc). */
    pid: () => child?.pid,
    async config(): Promise<PlatformConfig> {
      return configFor({ DATA_DIR: dataDir, ...(await prepare()).backend.env });
    },
    /** Starts the platform, again on the same port and data after a kill. */
    async start(): Promise<ChildPlatform> {
      const { backend, port } = await prepare();
      child = await spawnPlatform(
        {
          DATA_DIR: dataDir,
          DEMO_SEED: '1',
          PLATFORM_PORT: String(port),
          LOG_LEVEL: 'warn',
          ...backend.env,
          ...env,
        },
        (line) => logs.push(line),
      );
      const webClient = JSON.parse(
        readFileSync(join(dataDir, 'web-client.json'), 'utf8'),
      ) as ChildPlatform['webClient'];
      return { url: `http://127.0.0.1:${port}`, webClient };
    },
    /** Sends the running process a signal (`exited` says when and how it ended). */
    signal(name: NodeJS.Signals) {
      child?.kill(name);
    },
    /** The running process's exit code (null for a signal), once it has exited. */
    exited(): Promise<number | null> {
      const running = child;
      if (!running) return Promise.resolve(null);
      if (running.exitCode !== null || running.signalCode !== null) return Promise.resolve(running.exitCode);
      return new Promise((resolve) => running.once('exit', (code) => resolve(code)));
    },
    /** SIGKILL, as a crash or a power cut would end it; answers once the process is gone. */
    async kill() {
      const running = child;
      if (!running || running.exitCode !== null || running.signalCode !== null) return;
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGKILL');
      await exited;
    },
    async dispose() {
      await this.kill();
      if (backend) {
        const { redis } = configFor({ DATA_DIR: dataDir, ...backend.env });
        if (redis) await removeRedisKeys(redis.keyPrefix);
        await backend.dispose();
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
