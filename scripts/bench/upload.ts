/**
 * The bench's big upload (S1–S3): a PDF header then random bytes (sniffed as a PDF, accepted as a
 * financial document, which makes no thumbnail), sent as the spec's multipart create request or, to
 * the bare pipe, as the raw bytes.
 */
import { randomBytes } from 'node:crypto';
import { createReadStream, statSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { cpuTicks, rssBytes } from './common';

const boundary = 'bench-boundary';
const fields = { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' };
const head = Buffer.from(
  Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`)
    .join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
);
const tail = Buffer.from(`\r\n--${boundary}--\r\n`);

/** Writes the upload's file of `bytes` bytes into `work`; answers its path. */
export function writeUploadFile(work: string, bytes: number) {
  const file = join(work, 'upload.pdf');
  writeFileSync(file, Buffer.concat([Buffer.from('%PDF-1.4\n'), randomBytes(bytes - 9)]));
  return file;
}

export interface UploadResult {
  seconds: number;
  /** CPU ticks of the server process `pid` during the upload. */
  ticks: number;
  /** Its peak RSS growth, in bytes. */
  rssGrowth: number;
}

/** One upload of `file` to `url` (multipart: the platform's create request; else raw bytes). */
export async function upload(
  url: string,
  pid: number,
  options: { file: string; token?: string; multipart: boolean },
): Promise<UploadResult> {
  const { file, multipart } = options;
  const idle = rssBytes(pid);
  let peak = idle;
  const sampler = setInterval(() => (peak = Math.max(peak, rssBytes(pid))), 10);
  const ticks = cpuTicks(pid);
  const started = performance.now();
  const status = await new Promise<number>((resolve, reject) => {
    const length = multipart ? head.length + statSync(file).size + tail.length : statSync(file).size;
    const req = request(url, {
      method: 'POST',
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        'content-type': multipart ? `multipart/form-data; boundary=${boundary}` : 'application/octet-stream',
        'content-length': String(length),
      },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    if (multipart) req.write(head);
    const body = createReadStream(file);
    body.pipe(req, { end: false });
    body.on('end', () => req.end(multipart ? tail : undefined));
  });
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  if (status !== 201) throw new Error(`upload answered ${status}`);
  return { seconds, ticks: cpuTicks(pid) - ticks, rssGrowth: peak - idle };
}

/** A 1×1 PNG uploaded as a product's logo: the asset that S4 and S5 read. Answers its id. */
export async function uploadLogo(platformUrl: string, token: string) {
  const form = new FormData();
  for (const [k, v] of Object.entries({ file_type: 'logo', assetable_type: 'Product', assetable_id: '1' }))
    form.append(k, v);
  const png = Buffer.from(
    '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a5f2d4f00000000049454e44ae426082',
    'hex',
  );
  form.append('file', new Blob([png]), 'logo.png');
  const answer = await fetch(`${platformUrl}/v2/core/assets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  });
  if (answer.status !== 201) throw new Error(`logo upload answered ${answer.status}`);
  return ((await answer.json()) as { asset: { id: number } }).asset.id;
}
