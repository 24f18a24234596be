import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileStore } from '@tus/file-store';
import { Server as TusServer } from '@tus/server';
import { Upload } from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resumableUploadsPath } from '../shared/api/resumable-uploads';
import { startProxy, type RunningProxy } from './testing/proxy-server';

/**
 * A tus server as the platform (@tus/server alone, answering absolute upload URLs of its own
 * origin), behind the proxy with PLATFORM_API_VIA_PROXY=1: tus-js-client, as the app uses it,
 * talks to the proxy only.
 */
let directory: string;
let upstream: Server;
let proxy: RunningProxy;
const authorizations: (string | undefined)[] = [];

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'tus-forwarding-'));
  const tus = new TusServer({ path: resumableUploadsPath, datastore: new FileStore({ directory }) });
  upstream = createServer((request, response) => {
    authorizations.push(request.headers.authorization);
    void tus.handle(request, response);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  proxy = await startProxy({ baseUrl, secret: 's' }, { PLATFORM_API_VIA_PROXY: '1', LOG_LEVEL: 'silent' });
});
afterAll(async () => {
  await proxy.close();
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

const proxyUrl = () => `http://127.0.0.1:${proxy.port}`;

describe('the proxy forwards tus', () => {
  it('answers the discovery OPTIONS with the tus headers', async () => {
    const response = await fetch(`${proxyUrl()}${resumableUploadsPath}`, { method: 'OPTIONS' });
    expect(response.status).toBe(204);
    expect(response.headers.get('tus-resumable')).toBe('1.0.0');
    expect(response.headers.get('tus-extension')).toContain('creation');
  });

  it('streams an upload through in pieces, keeps the upload URL on the proxy, and resumes from HEAD', async () => {
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const locations: string[] = [];
    const sent = await new Promise<string>((resolve, reject) => {
      const upload = new Upload(bytes, {
        endpoint: `${proxyUrl()}${resumableUploadsPath}`,
        headers: { Authorization: 'Bearer test-token' },
        metadata: { name: 'deck.pdf' },
        chunkSize: 1024 * 1024,
        retryDelays: [],
        storeFingerprintForResuming: false,
        onAfterResponse: (_request, response) => {
          const location = response.getHeader('location');
          if (location) locations.push(location);
        },
        onSuccess: () => resolve(upload.url!),
        onError: reject,
      });
      upload.start();
    });
    // The upload's URL names the proxy, not the platform behind it.
    expect(sent.startsWith(`${proxyUrl()}${resumableUploadsPath}/`)).toBe(true);
    expect(locations.every((l) => !l.includes(`:${(upstream.address() as AddressInfo).port}`))).toBe(true);
    const id = sent.split('/').pop()!;
    const stored = readFileSync(join(directory, id));
    expect(createHash('sha256').update(stored).digest('hex')).toBe(
      createHash('sha256').update(bytes).digest('hex'),
    );
    expect(authorizations.filter((a) => a === 'Bearer test-token').length).toBeGreaterThanOrEqual(4);

    const head = await fetch(sent, { method: 'HEAD', headers: { 'tus-resumable': '1.0.0' } });
    expect(head.status).toBe(200);
    expect(head.headers.get('upload-offset')).toBe(String(bytes.length));
    expect(head.headers.get('upload-length')).toBe(String(bytes.length));
  });

  it('passes a wrong offset on as tus answers it: 409', async () => {
    const created = await fetch(`${proxyUrl()}${resumableUploadsPath}`, {
      method: 'POST',
      headers: { 'tus-resumable': '1.0.0', 'upload-length': '100' },
    });
    expect(created.status).toBe(201);
    const patched = await fetch(new URL(created.headers.get('location')!, proxyUrl()), {
      method: 'PATCH',
      headers: {
        'tus-resumable': '1.0.0',
        'upload-offset': '50',
        'content-type': 'application/offset+octet-stream',
      },
      body: Buffer.alloc(10),
    });
    expect(patched.status).toBe(409);
  });
});
