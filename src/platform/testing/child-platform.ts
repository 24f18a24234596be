import { spawn, type ChildProcess } from 'node:child_process';

/** Waits until a platform answers /healthz. */
export async function waitForHealth(url: string) {
  for (let i = 0; i < 150; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not start`);
}

/**
 * The platform as its own process, the way people run it, for tests that need to stop or kill it.
 * `command` is `npm run platform` or the node entry point.
 */
export async function spawnPlatform(
  env: Record<string, string>,
  command: 'npm' | 'node' = 'node',
): Promise<ChildProcess> {
  const child =
    command === 'npm'
      ? spawn('npm', ['run', 'platform', '--silent'], {
          env: { ...process.env, ...env },
          stdio: 'ignore',
          detached: true,
        })
      : spawn(process.execPath, ['--import', 'tsx', 'src/platform/main.ts'], {
          env: { ...process.env, ...env },
          stdio: 'ignore',
        });
  await waitForHealth(`http://127.0.0.1:${env.PLATFORM_PORT}`);
  return child;
}
