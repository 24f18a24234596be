/**
 * Resumable (tus) uploads, issue 32 (BENCH_ONLY=resumable; part of every full `npm run bench`):
 *   R1 a 50 MB upload cut at ~50 % and resumed: bytes sent in all ÷ the file (≤ 1.1)
 *   R2 MB/s of a 50 MB tus upload (create, then one PATCH) ÷ a plain POST of the same file, interleaved
 *   R3 peak RSS growth of the platform across 8 concurrent 50 MB tus uploads (≤ 150 MB)
 * Ports 24900–24901 (BENCH_RESUMABLE_PORT moves them).
 */
import { createReadStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { Upload } from 'tus-js-client';
import { type BenchRow, median, rssBytes, roundRatios, startBenchPlatform, stopAll } from './common';
import { upload, writeUploadFile } from './upload';

const megabyte = 1024 * 1024;
const size = 50 * megabyte;
const rounds = 5;
const metadata = {
  file_type: 'financial_document',
  assetable_type: 'Investment',
  assetable_id: '1',
  name: 'big.pdf',
};
const metadataHeader = Object.entries(metadata)
  .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
  .join(',');

/** Creates an upload and sends the file in one streamed PATCH, as a tus client on a good line does. */
async function tusOnce(platformUrl: string, token: string, file: string): Promise<number> {
  const started = performance.now();
  const created = await fetch(`${platformUrl}/v2/core/uploads`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'tus-resumable': '1.0.0',
      'upload-length': String(statSync(file).size),
      'upload-metadata': metadataHeader,
    },
  });
  if (created.status !== 201) throw new Error(`tus create answered ${created.status}`);
  const location = new URL(created.headers.get('location')!, platformUrl);
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(location, {
      method: 'PATCH',
      headers: {
        authorization: `Bearer ${token}`,
        'tus-resumable': '1.0.0',
        'upload-offset': '0',
        'content-type': 'application/offset+octet-stream',
        'content-length': String(statSync(file).size),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    createReadStream(file).pipe(req);
  });
  if (status !== 200) throw new Error(`tus PATCH answered ${status}`);
  return (performance.now() - started) / 1000;
}

/** A TCP relay that counts what clients send and can drop every connection once. */
async function relayTo(port: number) {
  const sockets = new Set<Socket>();
  let sent = 0;
  const server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy());
    }
    client.on('data', (chunk: Buffer) => (sent += chunk.length));
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    sent: () => sent,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

/** tus-js-client through the relay, the connection cut once half the file has gone. */
async function cutAndResume(platformPort: number, token: string, bytes: Buffer) {
  const relay = await relayTo(platformPort);
  let cut = false;
  try {
    await new Promise<void>((resolve, reject) => {
      const tus = new Upload(bytes, {
        endpoint: `http://127.0.0.1:${relay.port}/v2/core/uploads`,
        headers: { Authorization: `Bearer ${token}` },
        metadata,
        retryDelays: [200, 500, 1000, 2000],
        storeFingerprintForResuming: false,
        onProgress: (sentBytes, total) => {
          if (!cut && sentBytes >= total / 2) {
            cut = true;
            relay.cut();
          }
        },
        onSuccess: () => resolve(),
        onError: reject,
      });
      tus.start();
    });
    if (!cut) throw new Error('the upload was never cut');
    return relay.sent() / bytes.length;
  } finally {
    await relay.close();
  }
}

export async function benchResumable(): Promise<BenchRow[]> {
  const port = Number(process.env.BENCH_RESUMABLE_PORT ?? 24900);
  const work = mkdtempSync(join(tmpdir(), 'bench-resumable-'));
  const children: ChildProcess[] = [];
  try {
    const { platformUrl, token, pid } = await startBenchPlatform(
      work,
      port,
      { UPLOADS_PER_USER: '20', PDF_THUMBNAIL_WORKERS: '0' },
      children,
    );
    const file = writeUploadFile(work, size);
    const bytes = readFileSync(file);

    const sentRatios: number[] = [];
    for (let i = 0; i < 3; i++) sentRatios.push(await cutAndResume(port, token, bytes));

    const tusSeconds: number[] = [];
    const postSeconds: number[] = [];
    for (let i = 0; i < rounds; i++) {
      postSeconds.push(
        (await upload(`${platformUrl}/v2/core/assets`, pid, { file, token, multipart: true })).seconds,
      );
      tusSeconds.push(await tusOnce(platformUrl, token, file));
    }
    const mbps = (seconds: number) => size / megabyte / seconds;

    const idle = rssBytes(pid);
    let peak = idle;
    const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 10);
    await Promise.all(Array.from({ length: 8 }, () => tusOnce(platformUrl, token, file)));
    clearInterval(sampler);

    return [
      {
        id: 'R1',
        measure: '50 MB tus upload cut at ~50 % and resumed: bytes sent ÷ file (3 runs)',
        ...roundRatios(sentRatios),
        target: '≤ 1.1',
      },
      {
        id: 'R2',
        measure: `tus MB/s ÷ plain POST, 50 MB (${median(tusSeconds.map(mbps)).toFixed(0)} vs ${median(postSeconds.map(mbps)).toFixed(0)})`,
        ...roundRatios(tusSeconds.map((t, i) => postSeconds[i]! / t)),
        target: '≥ 0.9',
      },
      {
        id: 'R3',
        measure: 'peak RSS growth across 8 concurrent 50 MB tus uploads, MB',
        ratio: (peak - idle) / megabyte,
        target: '≤ 150',
      },
    ];
  } finally {
    await stopAll(children);
    rmSync(work, { recursive: true, force: true });
  }
}
