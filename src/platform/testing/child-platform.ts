import { spawn, type ChildProcess } from 'node:child_process';

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
export async function spawnPlatform(env: Record<string, string>): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/platform/main.ts'], {
    env: { ...process.env, ...env },
    stdio: 'ignore',
  });
  try {
    await waitForHealth(`http://127.0.0.1:${env.PLATFORM_PORT}`, child);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return child;
}
