import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { problemSchema } from '../../shared/api/problem';
import { multipartBody } from '../testing/files';
import { bearer, startPlatform, type TestPlatform, tokensFor } from '../testing/platform-server';
import { storageState } from '../testing/storage-state';

const diskBytes = 1024 * 1024;

/**
 * Where this process may not mount a file system (mounting needs root), the full disk is simulated
 * at the file system boundary instead: files opened under `simulated.folder` accept `diskBytes` in
 * all, then every write fails with ENOSPC, as a full disk's do.
 */
const simulated = vi.hoisted(() => ({ folder: '', used: 0 }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs/promises')>();
  const open = async (...args: Parameters<typeof fs.open>): Promise<FileHandle> => {
    const handle = await fs.open(...args);
    if (!simulated.folder || !String(args[0]).startsWith(simulated.folder)) return handle;
    const writev: FileHandle['writev'] = async (buffers, position) => {
      const bytes = buffers.reduce((sum, b) => sum + b.byteLength, 0);
      if (simulated.used + bytes > diskBytes)
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), {
          code: 'ENOSPC',
          errno: -28,
          syscall: 'write',
        });
      simulated.used += bytes;
      return handle.writev(buffers, position);
    };
    return new Proxy(handle, {
      get(target, name) {
        if (name === 'writev') return writev;
        const value = Reflect.get(target, name, target) as unknown;
        return typeof value === 'function' ? (value as () => unknown).bind(target) : value;
      },
    });
  };
  return { ...fs, open, default: { ...fs, open } };
});

const logLines: { level: number; msg: string; freeBytes?: unknown }[] = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString().split('\n').filter(Boolean))
      logLines.push(JSON.parse(line) as (typeof logLines)[number]);
    done();
  },
});

let platform: TestPlatform;
let issuer: string;
let blobs: string;
let mounted = false;

beforeAll(async () => {
  platform = await startPlatform({}, { logger: { level: 'info', stream: logStream } });
  issuer = (await tokensFor(platform, 'issuer@demo.test')).access_token;
  // A real disk of 1 MB under the platform's files, where this process may mount one.
  blobs = join(platform.dataDir, 'blobs');
  mounted =
    spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${diskBytes},mode=0700`, 'tmpfs', blobs], {
      stdio: 'ignore',
    }).status === 0;
  if (mounted) mkdirSync(join(blobs, 'tmp'), { mode: 0o700 });
  else simulated.folder = blobs;
});
afterAll(async () => {
  if (mounted) spawnSync('umount', [blobs]);
  await platform.close();
});

const upload = (megabytes: number, name: string) =>
  fetch(`${platform.url}/v2/core/assets`, {
    method: 'POST',
    headers: bearer(issuer),
    body: multipartBody(
      { file_type: 'financial_document', assetable_type: 'Investment', assetable_id: '1' },
      { name, bytes: Buffer.concat([Buffer.from('id,value\n'), Buffer.alloc(megabytes * 1024 * 1024, 'a')]) },
    ),
  });

describe('H11 a full disk', () => {
  it(`H11 answers 507 insufficient_storage, keeps nothing half-written and logs it once with the free space`, async () => {
    const before = await storageState(platform.config);
    logLines.length = 0;
    const response = await upload(2, 'too-big-for-the-disk.csv');
    expect(response.status).toBe(507);
    expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(problemSchema.parse(await response.json()).code).toBe('insufficient_storage');

    const after = await storageState(platform.config);
    expect([after.rows, after.files, after.temporary]).toEqual([before.rows, before.files, 0]);
    const serious = logLines.filter((line) => line.level >= 40);
    expect(serious).toHaveLength(1);
    expect(serious[0]!.msg).toMatch(/disk is full/);
    expect(serious[0]!.freeBytes).toEqual(expect.any(Number));
  });

  it('H11 takes files again once there is room', async () => {
    simulated.used = 0;
    const response = await upload(0.25, 'fits.csv');
    expect(response.status, await response.clone().text()).toBe(201);
  });
});
