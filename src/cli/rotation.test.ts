import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeReadiness, rotationFrom, steadyStates } from './rotation';

describe('rotationFrom', () => {
  it('takes out only the instances that take connections and cannot serve', () => {
    expect(rotationFrom(['ready', 'not_ready', 'refusing'])).toEqual([true, false, true]);
  });

  it('keeps every instance in when none is ready: their own 503s are better than nginx’s 502', () => {
    expect(rotationFrom(['not_ready', 'not_ready', 'refusing'])).toEqual([true, true, true]);
  });
});

describe('steadyStates', () => {
  it('takes an instance out after two failed probes in a row, and back after two passes', () => {
    const steady = steadyStates(1);
    const seen = (
      ['not_ready', 'ready', 'not_ready', 'not_ready', 'ready', 'not_ready', 'ready', 'ready'] as const
    ).map((state) => steady([state])[0]);
    expect(seen).toEqual([
      'ready',
      'ready',
      'ready',
      'not_ready',
      'not_ready',
      'not_ready',
      'not_ready',
      'ready',
    ]);
  });

  it('puts an instance back at once when it refuses connections: nginx passes it over by itself', () => {
    const steady = steadyStates(1);
    steady(['not_ready']);
    expect(steady(['not_ready'])).toEqual(['not_ready']);
    expect(steady(['refusing'])).toEqual(['refusing']);
  });
});

describe('probeReadiness', () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((done) => (server ? server.close(() => done()) : done())));

  /** An instance's /readyz answering `status` with `body`, or never answering. */
  async function instance(answer?: { status: number; body: object }) {
    server = createServer((_request, response) => {
      if (answer)
        response
          .writeHead(answer.status, { 'content-type': 'application/json' })
          .end(JSON.stringify(answer.body));
    });
    await new Promise<void>((done) => server!.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('reads 200 as ready and 503 not_ready as not ready, naming what it said', async () => {
    expect(await probeReadiness(await instance({ status: 200, body: { status: 'ready' } }), 2000)).toEqual({
      state: 'ready',
      said: '/readyz 200 (ready)',
    });
    server!.close();
    expect(
      await probeReadiness(await instance({ status: 503, body: { status: 'not_ready' } }), 2000),
    ).toEqual({
      state: 'not_ready',
      said: '/readyz 503 (not_ready)',
    });
  });

  it('counts a stopping instance and a closed port as refusing: nginx passes them over by itself', async () => {
    const url = await instance({ status: 503, body: { status: 'stopping' } });
    expect((await probeReadiness(url, 2000)).state).toBe('refusing');
    await new Promise((done) => server!.close(done));
    server = undefined;
    expect(await probeReadiness(url, 2000)).toEqual({ state: 'refusing', said: 'not taking connections' });
  });

  it('counts a connection closed unanswered as not ready, not as refusing', async () => {
    const url = await instance();
    server!.on('connection', (socket) => socket.destroy());
    const probe = await probeReadiness(url, 2000);
    expect(probe.state).toBe('not_ready');
    expect(probe.said).toMatch(/^\/readyz failed \(/);
  });

  it('counts an instance that takes the connection and never answers as not ready', async () => {
    const url = await instance();
    expect(await probeReadiness(url, 300)).toEqual({ state: 'not_ready', said: '/readyz silent for 0.3 s' });
    server!.closeAllConnections();
  });
});
