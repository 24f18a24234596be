import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assetEnvelopeSchema } from '../shared/assets/asset';
import { answeredBy, startCluster, type TestCluster } from './testing/cluster';
import { multipartBody, pacedPost, sha256 } from './testing/files';
import { bearer, tokensFor } from './testing/platform-server';
import { pollUntil } from './testing/thumbnails';

/**
 * Issue 29, points 4 and 5, as an operator meets them: `npm run cluster` with three instances
 * behind nginx, a rolling restart under load (SIGTERM to each instance in turn, which its
 * supervisor starts again), an instance killed with SIGKILL, and one that stops answering its
 * /readyz. Which instance answered a request is read from nginx's access log, by the request id
 * nginx made and the platform answered in X-Request-Id.
 */
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startCluster(3, {
    // Every client comes through nginx from one address: the test is not about rate limits.
    API_RATE_LIMIT: '1000000',
    SHUTDOWN_GRACE_MS: '30000',
  });
}, 300_000);

afterAll(() => cluster?.stop(), 120_000);

const investment = { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' };

/** One request of a client, from its start to the last byte of its answer. */
interface Outcome {
  kind: 'create' | 'download_url' | 'download' | 'read';
  started: number;
  ended: number;
  status?: number;
  /** Why it counts as failed: a network error, an unexpected status, bytes that differ. */
  failure?: string;
  requestId?: string;
}

/**
 * Clients under load through nginx, each in a loop until told to stop: a create with an
 * Idempotency-Key whose body takes up to 1.6 s to send (so that some are in flight at each
 * SIGTERM), a download of one of its files checked byte for byte, a read. Every request is recorded,
 * whatever happens to it.
 */
function loadClients(nginx: string, tokens: string[]) {
  const outcomes: Outcome[] = [];
  const created = new Map<number, string>();
  let running = true;

  async function request(
    kind: Outcome['kind'],
    send: () => Promise<Response>,
    expected: number,
  ): Promise<Buffer | undefined> {
    const outcome: Outcome = { kind, started: performance.now(), ended: 0 };
    outcomes.push(outcome);
    try {
      const response = await send();
      outcome.status = response.status;
      outcome.requestId = response.headers.get('x-request-id') ?? undefined;
      const body = Buffer.from(await response.arrayBuffer());
      if (response.status !== expected)
        outcome.failure = `${response.status} ${body.toString().slice(0, 200)}`;
      return outcome.failure ? undefined : body;
    } catch (error) {
      outcome.failure = `${(error as Error).message} ${String((error as { cause?: unknown }).cause ?? '')}`;
      return undefined;
    } finally {
      outcome.ended = performance.now();
    }
  }

  async function client(n: number, token: string) {
    const mine: { id: number; sha: string }[] = [];
    for (let i = 0; running; i++) {
      const bytes = Buffer.from(
        `id,value\n${n},${i},${randomBytes(10_000 + Math.floor(Math.random() * 90_000)).toString('hex')}\n`,
      );
      const body = await request(
        'create',
        () =>
          pacedPost(
            `${nginx}/v2/core/assets`,
            token,
            multipartBody(investment, { name: `client-${n}-${i}.csv`, bytes }),
            400 + Math.random() * 1200,
            { 'idempotency-key': randomUUID() },
          ),
        201,
      );
      if (body) {
        const { asset } = assetEnvelopeSchema.parse(JSON.parse(body.toString()));
        created.set(asset.id, sha256(bytes));
        mine.push({ id: asset.id, sha: sha256(bytes) });
      }
      if (mine.length === 0) continue;
      const { id, sha } = mine[Math.floor(Math.random() * mine.length)]!;
      const link = await request(
        'download_url',
        () => fetch(`${nginx}/v2/core/assets/${id}/download_url`, { headers: bearer(token) }),
        200,
      );
      if (link) {
        const url = new URL((JSON.parse(link.toString()) as { url: string }).url);
        const file = await request('download', () => fetch(`${nginx}${url.pathname}${url.search}`), 200);
        if (file && sha256(file) !== sha)
          outcomes.at(-1)!.failure = `asset ${id}: other bytes than were sent`;
      }
      await request('read', () => fetch(`${nginx}/v2/core/assets/${id}`, { headers: bearer(token) }), 200);
    }
  }

  const clients = tokens.map((token, n) => client(n, token));
  return {
    outcomes,
    created,
    stop: async () => {
      running = false;
      await Promise.all(clients);
    },
  };
}

/** Which instance (`127.0.0.1:port`) answered each of these requests, once nginx has logged them all. */
const answerers = (requestIds: readonly string[]) =>
  pollUntil('nginx to log the requests', () => {
    const answered = answeredBy(cluster.accessLog());
    return requestIds.every((id) => answered.has(id)) ? requestIds.map((id) => answered.get(id)!) : undefined;
  });

const portOf = (url: string) => `127.0.0.1:${new URL(url).port}`;

/** Instance `i` runs in a process other than `pid`, answers its /readyz, and is in nginx's rotation. */
const restartedAndInRotation = (i: number, pid: number) =>
  pollUntil(
    `instance ${i + 1} to be started again and back in rotation`,
    async () => {
      const instance = cluster.state().instances[i]!;
      if (instance.pid === pid || !instance.inRotation) return undefined;
      const ready = await fetch(`${instance.url}/readyz`).then(
        (answer) => answer.ok,
        () => false,
      );
      return ready ? instance : undefined;
    },
    180_000,
  );

/** Reads through nginx until one is answered by `instance` (nginx sends it requests again). */
const reachedThroughNginx = (instance: string, token: string) =>
  pollUntil('a request through nginx answered by the instance', async () => {
    const answer = await fetch(`${cluster.state().nginx}/v2/core/me`, { headers: bearer(token) });
    expect(answer.status).toBe(200);
    const [answerer] = await answerers([answer.headers.get('x-request-id')!]);
    return answerer === instance ? true : undefined;
  });

describe('three instances behind nginx, supervised by npm run cluster', () => {
  it('loses no request of clients under load while each instance in turn gets SIGTERM and is started again', async () => {
    const { nginx, instances } = cluster.state();
    const platform = cluster.at(nginx);
    const tokens = await Promise.all(
      Array.from({ length: 5 }, async () => (await tokensFor(platform, 'issuer@demo.test')).access_token),
    );
    const load = loadClients(nginx, tokens);
    const sigterms: { instance: string; at: number }[] = [];
    try {
      await pollUntil('the load to be under way', () =>
        load.outcomes.filter(({ status }) => status === 201).length >= 10 ? true : undefined,
      );
      for (const [i, { url }] of instances.entries()) {
        const { pid } = cluster.state().instances[i]!;
        sigterms.push({ instance: portOf(url), at: performance.now() });
        process.kill(pid, 'SIGTERM');
        await restartedAndInRotation(i, pid);
      }
      // The last one restarted serves too before the load ends.
      const served = load.outcomes.length;
      await pollUntil('more requests after the last restart', () =>
        load.outcomes.length >= served + 20 ? true : undefined,
      );
    } finally {
      await load.stop();
    }

    // Every request is accounted for, and none failed.
    const failed = load.outcomes.filter(({ failure }) => failure !== undefined);
    // With what the instances logged of them, to tell why.
    const logged = cluster
      .instanceLog()
      .split('\n')
      .filter((line) => failed.some(({ requestId }) => requestId && line.includes(requestId)));
    expect({ failed, logged }).toEqual({ failed: [], logged: [] });
    const count = (kind: Outcome['kind']) => load.outcomes.filter((o) => o.kind === kind).length;
    console.info(
      `rolling restart under load: ${load.outcomes.length} requests (${count('create')} creates, ` +
        `${count('download_url') + count('download')} download steps, ${count('read')} reads), none failed`,
    );
    expect(load.created.size).toBe(count('create'));

    // Requests were in flight on the instances as they got their SIGTERM, and were answered.
    const answered = await answerers(load.outcomes.map(({ requestId }) => requestId!));
    const inFlightAtSigterm = sigterms.map(
      ({ instance, at }) =>
        load.outcomes.filter(
          ({ started, ended }, i) => answered[i] === instance && started < at && at < ended,
        ).length,
    );
    console.info(
      `requests in flight on each instance at its SIGTERM, all answered: ${inFlightAtSigterm.join(', ')}`,
    );
    expect(inFlightAtSigterm.reduce((a, b) => a + b)).toBeGreaterThan(0);
    // And every instance served requests.
    for (const { instance } of sigterms) expect(answered).toContain(instance);

    // Every file whose 201 was received is stored whole.
    for (const [id, expected] of load.created) {
      const link = await fetch(`${nginx}/v2/core/assets/${id}/download_url`, { headers: bearer(tokens[0]!) });
      const url = new URL(((await link.json()) as { url: string }).url);
      const file = await fetch(`${nginx}${url.pathname}${url.search}`);
      expect(file.status).toBe(200);
      expect(sha256(Buffer.from(await file.arrayBuffer()))).toBe(expected);
    }
  }, 600_000);

  it('starts a killed instance again by itself, with a new pid, and nginx sends it requests again', async () => {
    const platform = cluster.at(cluster.state().nginx);
    const { access_token } = await tokensFor(platform, 'investor@demo.test');
    const victim = cluster.state().instances[1]!;
    process.kill(victim.pid, 'SIGKILL');
    const again = await restartedAndInRotation(1, victim.pid);
    expect(again.pid).not.toBe(victim.pid);
    await reachedThroughNginx(portOf(victim.url), access_token);
  }, 300_000);

  it('sends no request to an instance while its /readyz fails, and sends it requests again once it passes', async () => {
    const platform = cluster.at(cluster.state().nginx);
    const { access_token } = await tokensFor(platform, 'investor@demo.test');
    const frozen = cluster.state().instances[2]!;
    // A frozen process: its /readyz never answers, and a request sent to it would hang.
    process.kill(frozen.pid, 'SIGSTOP');
    try {
      await pollUntil('the frozen instance to be out of rotation', () =>
        cluster.state().instances[2]!.inRotation ? undefined : true,
      );
      const requestIds: string[] = [];
      for (let i = 0; i < 30; i++) {
        const answer = await fetch(`${cluster.state().nginx}/v2/core/me`, {
          headers: bearer(access_token),
          signal: AbortSignal.timeout(20_000),
        });
        expect(answer.status).toBe(200);
        requestIds.push(answer.headers.get('x-request-id')!);
      }
      expect(await answerers(requestIds)).not.toContain(portOf(frozen.url));
    } finally {
      process.kill(frozen.pid, 'SIGCONT');
    }
    await pollUntil('the instance to be back in rotation', () =>
      cluster.state().instances[2]!.inRotation ? true : undefined,
    );
    expect(cluster.state().instances[2]!.pid).toBe(frozen.pid);
    await reachedThroughNginx(portOf(frozen.url), access_token);
  }, 300_000);
});
