import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { outageOf } from '../http/backend-outages';
import { csv, multipartBody } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { freshPostgresSchema, testPostgresUrl, type TestSchema } from '../testing/postgres';
import { startTcpProxy, type TcpProxy } from '../testing/tcp-proxy';
import { openDatabase } from './database';

/**
 * What a client meets while the platform's PostgreSQL is away (refused, silent, or resetting every
 * connection, through a TCP proxy), and that the same process serves again once it is back.
 */
const timeouts = { DATABASE_CONNECT_TIMEOUT_MS: '1000', DATABASE_STATEMENT_TIMEOUT_MS: '1000' };
/** The slowest a refusal may be: the statement timeout and pg's margin, and room for a busy machine. */
const answeredWithinMs = 8_000;

let proxy: TcpProxy;
let schema: TestSchema;
let platform: TestPlatform;
let token: string;

/** The schema's URL through the proxy, with a password that must never reach a log. */
function proxiedUrl(port: number) {
  const url = new URL(schema.url);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  url.password = 'never-logged-secret';
  return url.toString();
}

beforeAll(async () => {
  const direct = new URL(testPostgresUrl);
  proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  schema = await freshPostgresSchema();
  platform = await startPlatform({ ...timeouts, DATABASE_URL: proxiedUrl(proxy.port) });
  token = (await tokensFor(platform, 'issuer@demo.test')).access_token;
});
afterAll(async () => {
  await proxy?.restore();
  await platform?.close();
  await proxy?.close();
  await schema?.drop();
});

/** A request that reads the database (the caller's entities and profile). */
const me = () => fetch(`${platform.url}/v2/core/me`, { headers: bearer(token) });
const upload = (idempotencyKey: string) =>
  fetch(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: { ...bearer(token), 'idempotency-key': idempotencyKey },
    body: multipartBody(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name: 'figures.csv', bytes: csv() },
    ),
  });

async function expectRefusedInTime(request: () => Promise<Response> = me) {
  const started = performance.now();
  const answer = await request();
  expect(performance.now() - started).toBeLessThan(answeredWithinMs);
  expect(answer.status).toBe(503);
  expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
  expect(await answer.json()).toMatchObject({ status: 503, code: 'service_unavailable' });
}

/** /readyz's answer: its status, and the database's state. */
const readiness = async () => {
  const answer = await fetch(`${platform.url}/readyz`);
  const body = (await answer.json()) as { backends: { database: string } };
  return `${answer.status} ${body.backends.database}`;
};

/** Back by itself, in the same process: no restart; ready again for the load balancer. */
async function servesAgain() {
  await expect.poll(async () => (await me()).status, { timeout: 20_000 }).toBe(200);
  await expect.poll(readiness, { timeout: 20_000 }).toBe('200 up');
}

describe('PostgreSQL unavailable while the platform runs', () => {
  it.each([
    ['refuses connections', () => proxy.cut()],
    ['accepts connections but never answers', () => proxy.stall()],
    ['resets every connection', () => proxy.reset()],
  ])(
    'answers 503 with Retry-After when PostgreSQL %s, and serves again once it is back',
    async (fault, cause) => {
      expect((await me()).status).toBe(200);
      const key = `during-${fault.replaceAll(' ', '-')}`;
      await cause();
      try {
        // Twice: the connections the pool held, then new ones.
        await expectRefusedInTime();
        await expectRefusedInTime();
        await expectRefusedInTime(() => upload(key));
        // Out of the load balancer's rotation meanwhile; alive all along.
        await expect.poll(readiness).toBe('503 down');
        expect((await fetch(`${platform.url}/livez`)).status).toBe(200);
      } finally {
        await proxy.restore();
      }
      await servesAgain();
      // The refused upload's Idempotency-Key is free for its retry (no 409).
      expect((await upload(key)).status).toBe(201);
    },
  );
});

describe('a connection lost while a transaction holds it', () => {
  it('fails that transaction as an outage, without taking the process down, and the next one works', async () => {
    const db = await openDatabase(platform.config);
    try {
      let holding = () => {};
      const held = new Promise<void>((resolve) => (holding = resolve));
      let goOn = () => {};
      const resetDone = new Promise<void>((resolve) => (goOn = resolve));
      const transaction = db.transaction().execute(async (trx) => {
        await sql`select 1`.execute(trx);
        // Between two statements: the connection is Kysely's, not the pool's.
        holding();
        await resetDone;
        await sql`select 1`.execute(trx);
      });
      await held;
      proxy.reset();
      goOn();
      const failed = await transaction.then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(outageOf(failed)).toBeTruthy();
      await proxy.restore();
      await expect
        .poll(() =>
          sql`select 1 as one`.execute(db).then(
            ({ rows }) => rows.length,
            () => 0,
          ),
        )
        .toBe(1);
    } finally {
      await proxy.restore();
      await db.destroy();
    }
  });
});

describe('PostgreSQL unreachable at start', () => {
  it('waits for it, saying where without the password, and starts once it is there', async () => {
    await proxy.cut();
    const lines: string[] = [];
    const logger = { level: 'warn', stream: { write: (line: string) => void lines.push(line) } };
    const starting = startPlatform(
      { ...timeouts, DATABASE_URL: proxiedUrl(proxy.port) },
      { logger, shareWith: platform },
    ).catch((error: unknown) => error as Error);
    try {
      await expect.poll(() => lines.join('')).toContain(`database unreachable at 127.0.0.1:${proxy.port}`);
    } finally {
      await proxy.restore();
    }
    const second = await starting;
    if (second instanceof Error) throw second;
    await second.close();
    expect(lines.join('')).not.toContain('never-logged-secret');
  });

  it('gives up after DATABASE_START_TIMEOUT_MS with the same words', async () => {
    await proxy.cut();
    try {
      await expect(
        startPlatform({
          ...timeouts,
          DATABASE_URL: proxiedUrl(proxy.port),
          DATABASE_START_TIMEOUT_MS: '1500',
        }),
      ).rejects.toThrow(`database unreachable at 127.0.0.1:${proxy.port}`);
    } finally {
      await proxy.restore();
    }
  });
});
