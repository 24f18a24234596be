/**
 * Peer-2 of `npm run bench:peers`: uploads of 1 MB and 50 MB, client-side MB/s and server CPU per upload,
 * ours (POST /v2/core/assets, multipart: type sniffed, sha256 on the fly, file and folder fsynced,
 * the row committed with synchronous = FULL) against
 *   @tus/server + @tus/file-store (a creation POST, then one PATCH with the bytes; no fsync), and
 *   Fastify + @fastify/multipart writing the file part to disk with fsync (scripts/bench/servers.ts);
 * and "ours (tus)" (issue 32: a creation POST then one PATCH to /v2/core/uploads, which the platform
 * stores, then copies into its blob store and makes the asset of, as POST does) against @tus/server.
 * 1 MB: 4 loops uploading for 2 s per round; 50 MB: 2 uploads one after another per round.
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { cpuTicks, median, roundRatios, startBenchPlatform, startNode, tickMicros, waitFor } from './common';
import type { PeerRow } from './peers';

/** One HTTP request with a body; answers its status and Location. */
function send(url: string, method: string, headers: Record<string, string>, parts: Buffer[]) {
  return new Promise<{ status: number; location?: string }>((resolve, reject) => {
    const length = parts.reduce((n, p) => n + p.length, 0);
    const req = request(url, { method, headers: { ...headers, 'content-length': String(length) } }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, location: res.headers.location }));
    });
    req.on('error', reject);
    for (const part of parts) req.write(part);
    req.end();
  });
}

const boundary = 'bench-boundary';
function multipartBody(fields: Record<string, string>, file: Buffer) {
  const head = Buffer.from(
    Object.entries(fields)
      .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
      .join('') +
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="upload.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
  );
  return [head, file, Buffer.from(`\r\n--${boundary}--\r\n`)];
}

interface Uploader {
  name: string;
  pid: number;
  upload(file: Buffer): Promise<void>;
}

interface UploadLoad {
  megabytesPerSecond: number;
  cpuMicrosPerUpload: number;
}

/** Uploads `file` from `loops` loops, for `ms` or `count` uploads per loop, whichever is given. */
async function uploadLoad(
  side: Uploader,
  file: Buffer,
  options: { loops: number; ms?: number; count?: number },
): Promise<UploadLoad> {
  const ticks = cpuTicks(side.pid);
  const started = performance.now();
  let uploads = 0;
  await Promise.all(
    Array.from({ length: options.loops }, async () => {
      for (let i = 0; options.ms ? performance.now() - started < options.ms : i < options.count!; i++) {
        await side.upload(file);
        uploads++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return {
    megabytesPerSecond: (uploads * file.length) / 2 ** 20 / seconds,
    cpuMicrosPerUpload: ((cpuTicks(side.pid) - ticks) * tickMicros) / uploads,
  };
}

export async function benchUploads(
  work: string,
  children: ChildProcess[],
  rounds: number,
): Promise<PeerRow[]> {
  const ours = await startBenchPlatform(work, 4940, { UPLOADS_PER_USER: '100' }, children);
  const tusDir = join(work, 'tus');
  const multipartDir = join(work, 'multipart');
  mkdirSync(tusDir);
  mkdirSync(multipartDir);
  const tus = startNode(children, ['scripts/bench/peers/tus-server.ts', '4941', tusDir]);
  const fastify = startNode(children, ['scripts/bench/servers.ts', 'multipart', '4942', multipartDir]);
  await Promise.all([waitFor('http://127.0.0.1:4941/files'), waitFor('http://127.0.0.1:4942/')]);

  // A type without thumbnails, so that nothing runs after the 201 (S1p compares the two).
  const fields = { file_type: 'additional_document', assetable_type: 'Investment', assetable_id: '1' };
  const sides: Uploader[] = [
    {
      name: 'ours',
      pid: ours.pid,
      async upload(file) {
        const { status } = await send(
          `${ours.platformUrl}/v2/core/assets`,
          'POST',
          {
            authorization: `Bearer ${ours.token}`,
            'content-type': `multipart/form-data; boundary=${boundary}`,
          },
          multipartBody(fields, file),
        );
        if (status !== 201) throw new Error(`our upload answered ${status}`);
      },
    },
    {
      name: 'ours (tus)',
      pid: ours.pid,
      async upload(file) {
        const created = await send(
          `${ours.platformUrl}/v2/core/uploads`,
          'POST',
          {
            authorization: `Bearer ${ours.token}`,
            'tus-resumable': '1.0.0',
            'upload-length': String(file.length),
            'upload-metadata': Object.entries({ ...fields, name: 'deck.pdf' })
              .map(([k, v]) => `${k} ${Buffer.from(v).toString('base64')}`)
              .join(','),
          },
          [],
        );
        if (created.status !== 201 || !created.location)
          throw new Error(`our tus creation answered ${created.status}`);
        const { status } = await send(
          new URL(created.location, ours.platformUrl).href,
          'PATCH',
          {
            authorization: `Bearer ${ours.token}`,
            'tus-resumable': '1.0.0',
            'upload-offset': '0',
            'content-type': 'application/offset+octet-stream',
          },
          [file],
        );
        if (status !== 200) throw new Error(`our tus PATCH answered ${status}`);
      },
    },
    {
      name: '@tus/server',
      pid: tus.pid!,
      async upload(file) {
        const tusHeaders = { 'tus-resumable': '1.0.0' };
        const created = await send(
          'http://127.0.0.1:4941/files',
          'POST',
          { ...tusHeaders, 'upload-length': String(file.length) },
          [],
        );
        if (created.status !== 201 || !created.location)
          throw new Error(`tus creation answered ${created.status}`);
        const { status } = await send(
          new URL(created.location, 'http://127.0.0.1:4941').href,
          'PATCH',
          { ...tusHeaders, 'upload-offset': '0', 'content-type': 'application/offset+octet-stream' },
          [file],
        );
        if (status !== 204) throw new Error(`tus PATCH answered ${status}`);
      },
    },
    {
      name: 'Fastify + multipart + fsync',
      pid: fastify.pid!,
      async upload(file) {
        const { status } = await send(
          'http://127.0.0.1:4942/upload',
          'POST',
          { 'content-type': `multipart/form-data; boundary=${boundary}` },
          multipartBody(fields, file),
        );
        if (status !== 201) throw new Error(`multipart upload answered ${status}`);
      },
    },
  ];

  const rows: PeerRow[] = [];
  for (const [label, megabytes, options] of [
    ['1 MB', 1, { loops: 4, ms: 2000 }],
    ['50 MB', 50, { loops: 1, count: 2 }],
  ] as const) {
    // A PDF header and random bytes: sniffed as a PDF by ours, compressible by nobody.
    const file = Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(megabytes * 2 ** 20 - 9)]);
    for (const side of sides) await uploadLoad(side, file, { loops: options.loops, count: 1 }); // Warm-up.
    const loads = sides.map(() => [] as UploadLoad[]);
    for (let i = 0; i < rounds; i++)
      for (const [s, side] of sides.entries()) loads[s]!.push(await uploadLoad(side, file, options));
    const [postLoads, tusLoads, ...peerLoads] = loads as [UploadLoad[], UploadLoad[], ...UploadLoad[][]];
    // Ours by POST against each peer; ours by tus against @tus/server alone (the same protocol).
    const pairs = [
      ...peerLoads.map((peer, p) => ({ oursLoads: postLoads, peer, name: sides[p + 2]!.name, ourName: '' })),
      { oursLoads: tusLoads, peer: peerLoads[0]!, name: sides[2]!.name, ourName: ' (ours by tus)' },
    ];
    for (const { oursLoads, peer, name, ourName } of pairs) {
      rows.push(
        {
          id: 'Peer-2',
          measure: `${label} upload, MB/s${ourName}`,
          ours: median(oursLoads.map((l) => l.megabytesPerSecond)).toFixed(0),
          peer: `${name} ${median(peer.map((l) => l.megabytesPerSecond)).toFixed(0)}`,
          ...roundRatios(oursLoads.map((o, i) => o.megabytesPerSecond / peer[i]!.megabytesPerSecond)),
          target: '≥ 1',
        },
        {
          id: 'Peer-2',
          measure: `${label} upload, server CPU per upload (ms): peer ÷ ours${ourName}`,
          ours: (median(oursLoads.map((l) => l.cpuMicrosPerUpload)) / 1000).toFixed(1),
          peer: `${name} ${(median(peer.map((l) => l.cpuMicrosPerUpload)) / 1000).toFixed(1)}`,
          ...roundRatios(oursLoads.map((o, i) => peer[i]!.cpuMicrosPerUpload / o.cpuMicrosPerUpload)),
          target: '≥ 1',
        },
      );
    }
  }
  return rows;
}
