import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { buildPlatform } from '../composition/app';
import { configFor } from '../config/env';
import { testBackend } from '../testing/backends';

/** The platform's log output, sent to this file rather than the test run's standard output. */
const logFile = vi.hoisted(() => ({ path: '' }));
vi.mock('./log-output', async (importOriginal) => {
  const actual = await importOriginal<typeof import('./log-output')>();
  return {
    ...actual,
    bufferedStdout: (options: Parameters<typeof actual.bufferedStdout>[0] = {}) =>
      actual.bufferedStdout({ ...options, dest: logFile.path }),
  };
});

/** Runs `body` in a node process of its own with `output` = bufferedStdout(); answers its stdout. */
function run(body: string) {
  const script = `import { bufferedStdout } from './src/platform/plugins/log-output.ts';
const output = bufferedStdout();
${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return { output: () => out, exited, child };
}

describe('the log output', () => {
  it('writes every line, in order, when the process exits before the next batch', async () => {
    // 3 000 lines: past a batch of 16 KB several times, with the last ones still waiting at exit.
    const { output, exited } = run(`
for (let i = 0; i < 3000; i++) output.write(JSON.stringify({ msg: 'line ' + i }) + '\\n');
process.exit(3);`);
    expect(await exited).toBe(3);
    const lines = output().trim().split('\n');
    expect(lines).toHaveLength(3000);
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(
      Array.from({ length: 3000 }, (_, i) => `line ${i}`),
    );
  }, 60_000);

  it('writes a lone line within its flush period, while the process goes on', async () => {
    const { output, exited, child } = run(`
output.write('{"msg":"alone"}\\n');
setInterval(() => {}, 1000);`);
    try {
      await expect.poll(output, { timeout: 30_000 }).toBe('{"msg":"alone"}\n');
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  }, 60_000);
});

describe("a platform's log output at its close", () => {
  const dirs: string[] = [];
  afterEach(() => {
    vi.useRealTimers();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('leaves no timer running and loses no line', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'log-output-'));
    dirs.push(dataDir);
    logFile.path = join(dataDir, 'platform.log');
    const backend = await testBackend();
    // Only intervals are faked: they are what would run on after the platform, and counting them
    // says whether any does.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const app = await buildPlatform(configFor({ DATA_DIR: dataDir, LOG_LEVEL: 'info', ...backend.env }));
    try {
      // Fewer than a batch: without the close they would wait for the timer.
      for (let i = 0; i < 5; i++) app.log.info(`line ${i}`);
    } finally {
      await app.close();
      await backend.dispose();
    }
    expect(vi.getTimerCount()).toBe(0);
    const messages = () =>
      existsSync(logFile.path)
        ? readFileSync(logFile.path, 'utf8')
            .trim()
            .split('\n')
            .map((line) => (JSON.parse(line) as { msg: string }).msg)
        : [];
    await expect
      .poll(messages)
      .toEqual(expect.arrayContaining(['line 0', 'line 1', 'line 2', 'line 3', 'line 4']));
  });
});
