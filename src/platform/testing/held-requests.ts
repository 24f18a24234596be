import { request as httpRequest } from 'node:http';
import { bearer, type TestPlatform } from './platform-server';

// Requests for tests of several instances (shared-state/*.redis.test.ts): from an address of their own, or held open.

/** A request sent from another loopback address: another client, with a budget of its own. */
export function requestFrom(
  localAddress: string,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
) {
  return new Promise<number>((resolve, reject) => {
    const req = httpRequest(
      url,
      { localAddress, method: init.method ?? 'GET', headers: init.headers },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

/**
 * An upload held open: the file has started, and its end is sent by `finish`. `startedBytes`: how
 * much of the file is sent at once (past 5 MB, a bucket shows it as a multipart upload under way).
 */
export function holdUpload(platform: TestPlatform, token: string, idempotencyKey?: string, startedBytes = 0) {
  const boundary = 'held-upload';
  const head =
    `--${boundary}\r\nContent-Disposition: form-data; name="file_type"\r\n\r\nfinancial_document\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="assetable_type"\r\n\r\nInvestment\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="assetable_id"\r\n\r\n1\r\n` +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="held.csv"\r\n\r\nyear,value\n` +
    '2024\n'.repeat(Math.ceil(startedBytes / 5));
  const rest = `2025\r\n--${boundary}--\r\n`;
  const req = httpRequest(`${platform.url}/v2/core/assets`, {
    // A connection of its own: a kept-alive one the platform has meanwhile closed would lose it.
    agent: false,
    method: 'POST',
    headers: {
      ...bearer(token),
      ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}),
      'content-type': `multipart/form-data; boundary=${boundary}`,
      'content-length': String(head.length + rest.length),
    },
  });
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
  });
  req.write(head);
  return { finish: () => req.end(rest), answer, status: answer.then((a) => a.status) };
}
