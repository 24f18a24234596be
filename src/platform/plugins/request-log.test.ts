import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForHealth } from '../testing/child-platform';
import { bearer, freePort, startPlatform, tokensFor, type TestPlatform } from '../testing/platform-server';

const dataDirs: string[] = [];
afterAll(() => dataDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'platform-log-'));
  dataDirs.push(dir);
  return dir;
};
type Line = Record<string, unknown> & { msg: string };
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the request line', () => {
  let platform: TestPlatform;
  let token: string;
  const lines: Line[] = [];
  let output = '';
  beforeAll(async () => {
    platform = await startPlatform(
      {},
      {
        logger: {
          level: 'info',
          stream: {
            write: (line: string) => {
              output += line;
              lines.push(JSON.parse(line) as Line);
            },
          },
        },
      },
    );
    token = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  });
  afterAll(() => platform?.close());
  /** The request lines of the answers carrying `requestId`. */
  const linesOf = (requestId: string) => lines.filter((l) => l.reqId === requestId);

  it('is one info line per request: method, route, status, ms, request id and user, never the token', async () => {
    const answer = await fetch(`${platform.url}/v2/core/assets/900001?signature=secret-query`, {
      headers: { ...bearer(token), 'x-request-id': 'nginx-4f1c2a' },
    });
    expect(answer.status).toBe(404);
    expect(answer.headers.get('x-request-id')).toBe('nginx-4f1c2a');
    await expect.poll(() => linesOf('nginx-4f1c2a').length).toBe(1);
    expect(linesOf('nginx-4f1c2a')).toEqual([
      {
        level: 30,
        time: expect.any(Number),
        pid: process.pid,
        hostname: expect.any(String),
        reqId: 'nginx-4f1c2a',
        msg: 'request',
        method: 'GET',
        route: '/v2/core/assets/:id',
        status: 404,
        ms: expect.any(Number),
        userId: expect.any(Number),
      },
    ]);
    expect(output).not.toContain(token);
    expect(output).not.toContain('secret-query');
    expect(output.toLowerCase()).not.toContain('authorization');
  });

  it('makes an id when the request has none, and answers with it', async () => {
    const answer = await fetch(`${platform.url}/livez`);
    const made = answer.headers.get('x-request-id');
    expect(made).toMatch(uuid);
    await expect
      .poll(() => linesOf(made!))
      .toEqual([expect.objectContaining({ msg: 'request', route: '/livez', status: 200 })]);
  });

  it('replaces an id that is too long or carries control characters', async () => {
    for (const hostile of ['x'.repeat(65), 'forged\tlevel=50', 'a b']) {
      const answer = await fetch(`${platform.url}/livez`, { headers: { 'x-request-id': hostile } });
      const made = answer.headers.get('x-request-id');
      expect(made).toMatch(uuid);
      await expect.poll(() => linesOf(made!).length).toBe(1);
    }
    expect(output).not.toContain('forged');
  });

  it('names the path, not a route, where no route matched', async () => {
    const answer = await fetch(`${platform.url}/no-such-page?x=secret-query`);
    expect(answer.status).toBe(404);
    const id = answer.headers.get('x-request-id')!;
    await expect
      .poll(() => linesOf(id))
      .toEqual([expect.objectContaining({ msg: 'request', path: '/no-such-page', status: 404 })]);
    expect(linesOf(id)[0]).not.toHaveProperty('route');
  });
});

describe('the platform as its own process, at the default level', () => {
  it('names its backends and migrations at start, then logs each request', async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const { LOG_LEVEL: _level, ...withoutLogLevel } = process.env;
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/platform/main.ts'], {
      // The default level, whatever this shell's LOG_LEVEL says.
      env: { ...withoutLogLevel, DATA_DIR: dataDir(), PLATFORM_PORT: String(port) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    try {
      await waitForHealth(url, child);
      const parsed = () =>
        out
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as Line);
      expect(parsed().map((line) => line.msg)).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^database: SQLite at .*platform\.sqlite, migrations applied: \d{3}/),
          expect.stringMatching(/^blob store: files in .*; no Redis/),
        ]),
      );
      const answer = await fetch(`${url}/v2/core/openapi.json?signature=secret`, {
        headers: { authorization: 'Bearer not-a-real-token-but-secret', 'x-request-id': 'from-nginx-1' },
      });
      expect(answer.status).toBe(200);
      await expect
        .poll(() => parsed().filter((line) => line.reqId === 'from-nginx-1'))
        .toEqual([
          expect.objectContaining({ level: 30, msg: 'request', route: '/v2/core/openapi.json', status: 200 }),
        ]);
      expect(out).not.toContain('secret');
      // Lines are written in batches (log-output.ts): the last ones still reach the output at a stop.
      const closed = new Promise((resolve) => child.once('close', resolve));
      child.kill('SIGTERM');
      await closed;
      expect(parsed().map((line) => line.msg)).toContainEqual(expect.stringMatching(/^SIGTERM: stopping/));
    } finally {
      child.kill('SIGTERM');
    }
    // The platform as its own node process: up to a minute to start on a busy machine.
  }, 90_000);
});
