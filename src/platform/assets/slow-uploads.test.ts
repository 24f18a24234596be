import { type ClientRequest, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemSchema } from '../../shared/api/problem';
import { csv, multipartBody } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { storageState, uploadsUnderWay } from '../testing/storage-state';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const boundary = 'slow-boundary';
const head = Buffer.from(
  `--${boundary}\r\nContent-Disposition: form-data; name="file_type"\r\n\r\nfinancial_document\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="assetable_type"\r\n\r\nInvestment\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="assetable_id"\r\n\r\n1\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.csv"\r\n\r\nyear,value\n`,
);
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);

interface Upload {
  request: ClientRequest;
  /** The answer, with its body, once it came. */
  answer: Promise<{ status: number; headers: Record<string, unknown>; body: string }>;
  /** Resolves when the server has closed the connection. */
  closed: Promise<void>;
}

/** A multipart upload whose body this test sends by hand, at its own pace. */
function startUpload(platform: TestPlatform, token: string, bodyBytes: number): Upload {
  const request = httpRequest(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: {
      ...bearer(token),
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + bodyBytes + tail.length),
    },
  });
  request.on('error', () => {});
  const closed = new Promise<void>((resolve) =>
    request.on('socket', (socket) => socket.once('close', () => resolve())),
  );
  const answer = new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve) =>
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk.toString()));
      response.on('end', () => resolve({ status: response.statusCode!, headers: response.headers, body }));
    }),
  );
  request.write(head);
  return { request, answer, closed };
}

/**
 * Sends a whole 40 MB upload over a raw connection, reading nothing until the last byte is written
 * (a client busy writing; on a busy machine or a slow network every client is), then answers the
 * status line and Retry-After it reads, or the error it meets. 40 MB: more than the machine's
 * socket buffers take in, so that the platform must read the body for the client to get so far.
 */
function writtenWholeThenRead(platform: TestPlatform, token: string): Promise<string> {
  const bodyBytes = 40 * 1024 * 1024;
  const { port } = new URL(platform.url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    socket.pause();
    let answer = '';
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(`failed: ${error.code}`));
    socket.on('end', () => {
      const status = /^HTTP\/1\.1 (\d+)/.exec(answer)?.[1];
      resolve(`${status} ${/retry-after: (\d+)/i.exec(answer)?.[1]}`);
    });
    socket.write(
      `POST /v2/core/assets HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\n` +
        `Content-Length: ${head.length + bodyBytes + tail.length}\r\nConnection: close\r\n\r\n`,
    );
    socket.write(head);
    socket.write(Buffer.alloc(bodyBytes, 'a'));
    socket.write(tail, () => socket.resume());
  });
}

describe('H8 slow clients', () => {
  let platform: TestPlatform;
  let issuer: string;
  beforeAll(async () => {
    platform = await startPlatform({
      // Scaled down so the tests take seconds: 1 KB/s over windows of 3 s (the first is the grace).
      // The clients here send 5 B/s (too slow) or 80 KB/s (fast enough), far from the limit either
      // way; the windows and the idle timeout stay long next to the pauses a busy machine makes this
      // process take (client and platform alike), so a fast upload never looks slow.
      UPLOAD_RATE_WINDOW_MS: '3000',
      UPLOAD_MIN_BYTES_PER_SECOND: '1024',
      HEADERS_TIMEOUT_MS: '2000',
      IDLE_TIMEOUT_MS: '5000',
    });
    issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  });
  afterAll(() => platform.close());

  it('H8 cuts an upload trickling a byte at a time off with 408 after the grace period, keeping nothing', async () => {
    const before = await storageState(platform.config);
    const upload = startUpload(platform, issuer, 100_000);
    let answered = false;
    void upload.answer.then(() => (answered = true));
    // The file has started: the platform is staging it in a temporary file.
    await expect.poll(() => uploadsUnderWay(platform.config)).toBe(1);
    const trickle = setInterval(() => {
      if (!answered) upload.request.write('1');
    }, 200);
    try {
      const { status, headers, body } = await upload.answer;
      expect(status).toBe(408);
      expect(headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(problemSchema.parse(JSON.parse(body)).code).toBe('upload_too_slow');
      await upload.closed;
    } finally {
      clearInterval(trickle);
    }
    await expect.poll(async () => (await storageState(platform.config)).temporary).toBe(0);
    const after = await storageState(platform.config);
    expect(after.rows).toBe(before.rows);
    expect(after.files).toBe(before.files);
  }, 60_000);

  it('H8 cuts a trickling JSON upload off with 408 too', async () => {
    const json = JSON.stringify({
      file: `data:text/csv;base64,${Buffer.from('a,b\n'.repeat(5000)).toString('base64')}`,
      file_type: 'financial_document',
      assetable_type: 'Investment',
      assetable_id: 1,
    });
    const request = httpRequest(`${platform.url}/v2/core/assets`, {
      method: 'POST',
      headers: {
        ...bearer(issuer),
        'content-type': 'application/json',
        'content-length': String(json.length),
      },
    });
    request.on('error', () => {});
    const answer = new Promise<{ status: number; body: string }>((resolve) =>
      request.on('response', (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => resolve({ status: response.statusCode!, body }));
      }),
    );
    request.write(json.slice(0, 100));
    let sent = 100;
    const trickle = setInterval(() => {
      if (sent < json.length - 1) request.write(json[sent++]!);
    }, 200);
    try {
      const { status, body } = await answer;
      expect(status).toBe(408);
      expect(problemSchema.parse(JSON.parse(body)).code).toBe('upload_too_slow');
    } finally {
      clearInterval(trickle);
      request.destroy();
    }
  }, 60_000);

  it('H8 lets an upload above the minimum rate take as long as it needs', async () => {
    const bodyBytes = 100 * 8192;
    const upload = startUpload(platform, issuer, bodyBytes);
    // 8 KB every 100 ms: about 80 KB/s against a minimum of 1 KB/s, for over three windows.
    for (let sent = 0; sent < bodyBytes; sent += 8192) {
      upload.request.write(Buffer.alloc(8192, 'a'));
      await sleep(100);
    }
    upload.request.end(tail);
    const { status, body } = await upload.answer;
    expect(status, body).toBe(201);
  }, 60_000);

  it('H8 answers a client that never finishes its headers with 408 after the headers timeout', async () => {
    const { port } = new URL(platform.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString()));
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    socket.write('POST /v2/core/assets HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ');
    const drip = setInterval(() => socket.writable && socket.write('a'), 200);
    try {
      await closed;
    } finally {
      clearInterval(drip);
    }
    expect(received).toMatch(/^HTTP\/1\.1 408 /);
    expect(received).toMatch(/content-type: application\/problem\+json/i);
    expect(received).toContain('"code":"request_timeout"');
  }, 60_000);

  it('H8 closes a connection that goes quiet in the middle of a request body', async () => {
    const request = httpRequest(`${platform.url}/v2/core/assets/1`, {
      method: 'PUT',
      headers: { ...bearer(issuer), 'content-type': 'application/json', 'content-length': '200' },
    });
    request.on('error', () => {});
    const closed = new Promise<void>((resolve) =>
      request.on('socket', (socket) => socket.once('close', () => resolve())),
    );
    request.write('{"asset": ');
    const started = Date.now();
    await closed;
    // The idle timeout is 5 s; far less than the 1-hour request timeout that would otherwise apply.
    expect(Date.now() - started).toBeLessThan(30_000);
  }, 60_000);
});

describe('H8 concurrent uploads per user', () => {
  let platform: TestPlatform;
  let issuer: string;
  let investor: string;
  beforeAll(async () => {
    platform = await startPlatform({ UPLOADS_PER_USER: '2' });
    issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
    investor = (await tokensFor(platform, 'investor@demo.test')).access_token;
  });
  afterAll(() => platform.close());

  const upload = (token: string, fields: Record<string, string>) =>
    fetch(`${platform.url}/v2/core/assets`, {
      method: 'POST',
      headers: bearer(token),
      body: multipartBody(fields, { name: 'figures.csv', bytes: csv() }),
    });
  const investment = { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' };

  it('H8 answers a third upload of the same user at once with 429, and lets it through once one ends', async () => {
    const held = [startUpload(platform, issuer, 1000), startUpload(platform, issuer, 1000)];
    await expect.poll(() => uploadsUnderWay(platform.config)).toBe(2);

    const refused = await upload(issuer, investment);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(problemSchema.parse(await refused.json()).code).toBe('too_many_uploads');

    // Another user is not held back by the issuer's uploads.
    const accreditation = {
      file_type: 'letter_of_accreditation',
      assetable_type: 'Accreditation',
      assetable_id: '1',
    };
    expect((await upload(investor, accreditation)).status).toBe(201);

    // One upload finishes, another is abandoned: both free their place.
    held[0]!.request.end(Buffer.concat([Buffer.alloc(1000, 'a'), tail]));
    expect((await held[0]!.answer).status).toBe(201);
    held[1]!.request.destroy();
    await held[1]!.closed;
    await expect.poll(async () => (await storageState(platform.config)).temporary).toBe(0);
    const results = await Promise.all([upload(issuer, investment), upload(issuer, investment)]);
    expect(results.map((r) => r.status)).toEqual([201, 201]);
  }, 60_000);

  it('H8 lets a refused upload of any allowed size read its 429 and Retry-After, not a broken connection', async () => {
    const held = [startUpload(platform, issuer, 1000), startUpload(platform, issuer, 1000)];
    await expect.poll(() => uploadsUnderWay(platform.config)).toBe(2);
    const written = await Promise.all(
      Array.from({ length: 10 }, () => writtenWholeThenRead(platform, issuer)),
    );
    expect(written).toEqual(Array(10).fill('429 10'));
    for (const upload of held) upload.request.destroy();
    await Promise.all(held.map((upload) => upload.closed));
  }, 60_000);
});
