import { readFile } from 'node:fs/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { outageLog, outageOf } from './backend-outages';
import { freePort } from '../testing/platform-server';

/** Which failures become a 503 with Retry-After (errors.ts), and which stay what they are. */
describe('outageOf', () => {
  it('takes a refused PostgreSQL connection for an outage', async () => {
    const client = new pg.Client({ host: '127.0.0.1', port: await freePort(), user: 'nobody' });
    const error = await client.connect().catch((caught: unknown) => caught);
    expect(outageOf(error)).toBeTruthy();
  });

  it("takes PostgreSQL's cancelled statement and shutdown, and pg's own words, for the database's", () => {
    expect(
      outageOf(Object.assign(new Error('canceling statement due to statement timeout'), { code: '57014' })),
    ).toBe('database');
    expect(outageOf(Object.assign(new Error('terminating connection'), { code: '57P01' }))).toBe('database');
    expect(outageOf(new Error('Connection terminated unexpectedly'))).toBe('database');
    expect(outageOf(new Error('Query read timeout'))).toBe('database');
  });

  it("takes a disk's input/output error (EIO) and the S3 SDK's timeouts and 5xx for the blob store's", () => {
    expect(outageOf(Object.assign(new Error('EIO: i/o error, read'), { code: 'EIO', syscall: 'read' }))).toBe(
      'blob store',
    );
    expect(outageOf(Object.assign(new Error('timed out'), { name: 'TimeoutError' }))).toBe('blob store');
    expect(outageOf(Object.assign(new Error('SlowDown'), { $metadata: { httpStatusCode: 503 } }))).toBe(
      'blob store',
    );
    // An aborted multipart upload reports the abort's failure, the first one as its cause.
    const first = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    expect(outageOf(new Error('abort failed', { cause: first }))).toBe('blob store');
  });

  it('leaves the errors of a request, of a missing file and of our own code alone', async () => {
    const missing = await readFile('/nonexistent/file').catch((caught: unknown) => caught);
    expect(outageOf(missing)).toBeUndefined();
    expect(outageOf(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBeUndefined();
    expect(
      outageOf(Object.assign(new Error('NoSuchKey'), { $metadata: { httpStatusCode: 404 } })),
    ).toBeUndefined();
    expect(outageOf(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBeUndefined();
  });
});

describe('outageLog', () => {
  it('logs an outage once, then once every 10 s with the requests refused since, without a stack trace', () => {
    let now = 0;
    const lines: string[] = [];
    const log = { warn: (line: string) => void lines.push(line) };
    const logOutage = outageLog(() => now);
    const refused = new Error('connect ECONNREFUSED 127.0.0.1:5432');
    for (let i = 0; i < 100; i++) logOutage(log, 'database', refused);
    expect(lines).toEqual(['the database is unavailable: connect ECONNREFUSED 127.0.0.1:5432; answered 503']);
    logOutage(log, 'blob store', new Error('timed out'));
    now = 10_000;
    logOutage(log, 'database', refused);
    expect(lines.slice(1)).toEqual([
      'the blob store is unavailable: timed out; answered 503',
      'the database is unavailable: connect ECONNREFUSED 127.0.0.1:5432; answered 503 (99 more requests refused since the last line)',
    ]);
  });
});
