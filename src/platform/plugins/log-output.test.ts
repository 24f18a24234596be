import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';

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
