import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildPlatform } from '../app';
import { configFor } from '../env';
import { waitForHealth } from '../testing/child-platform';
import { freePort } from '../testing/platform-server';

const dataDirs: string[] = [];
afterAll(() => dataDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-log-'));
  dataDirs.push(dir);
  return dir;
};
type Line = Record<string, unknown> & { msg: string };

describe('the access log', () => {
  it('is one debug line per request, with the path but never the query', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/platform/main.ts'], {
      env: { ...process.env, DATA_DIR: dataDir(), PLATFORM_PORT: String(port), LOG_LEVEL: 'debug' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitForHealth(url, child);
      expect((await fetch(`${url}/v2/core/openapi.json?signature=secret`)).status).toBe(200);
      // The line reaches this process through a pipe: soon, but not necessarily at once.
      await expect.poll(() => out.includes('openapi')).toBe(true);
      const logged = out
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as Line & { req?: { url: string } })
        .filter((line) => line.req?.url.startsWith('/v2/core/openapi.json'));
      expect(logged).toEqual([
        expect.objectContaining({
          level: 20,
          msg: 'request completed',
          req: { method: 'GET', url: '/v2/core/openapi.json' },
          res: { statusCode: 200 },
          responseTime: expect.any(Number),
        }),
      ]);
      expect(out).not.toContain('secret');
    } finally {
      child.kill('SIGTERM');
    }
    // The platform as its own node process: up to a minute to start on a busy machine.
  }, 90_000);

  it('is off at the default level', async () => {
    const lines: Line[] = [];
    const app = await buildPlatform(configFor({ DATA_DIR: dataDir() }), {
      logger: {
        level: 'info',
        stream: { write: (line: string) => void lines.push(JSON.parse(line) as Line) },
      },
    });
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    await app.close();
    expect(lines.filter((line) => line.msg.includes('request'))).toEqual([]);
  });
});
