import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createFileWriter, type WritableFile, writeAll } from './file-writer';

/** A file in memory whose writes are short (at most `perWrite` bytes) and may be held back. */
function fakeFile(perWrite = Number.POSITIVE_INFINITY) {
  const written: Buffer[] = [];
  const calls: number[] = [];
  let gate: Promise<void> = Promise.resolve();
  let open = () => {};
  const file: WritableFile & { bytes(): Buffer; calls: number[]; hold(): void; release(): void } = {
    async writev(buffers: NodeJS.ArrayBufferView[]) {
      calls.push(buffers.length);
      // A writer that never advances past a short write would otherwise loop forever in here.
      if (calls.length > 10_000) throw new Error('too many writes');
      await gate;
      let budget = perWrite;
      let bytesWritten = 0;
      for (const b of buffers as Uint8Array[]) {
        const take = Math.min(b.length, budget);
        written.push(Buffer.from(b.subarray(0, take)));
        budget -= take;
        bytesWritten += take;
        if (budget === 0) break;
      }
      return { bytesWritten, buffers };
    },
    bytes: () => Buffer.concat(written),
    calls,
    hold() {
      gate = new Promise((resolve) => (open = resolve));
    },
    release: () => open(),
  } as never;
  return file;
}

describe('writeAll', () => {
  it('finishes short writes, across and inside buffers', async () => {
    const file = fakeFile(7);
    const parts = [randomBytes(5), randomBytes(20), randomBytes(1), randomBytes(13)];
    await writeAll(file, parts);
    expect(file.bytes().equals(Buffer.concat(parts))).toBe(true);
    expect(file.calls.length).toBe(Math.ceil(39 / 7));
  });

  it('fails instead of spinning when the file takes nothing', async () => {
    await expect(writeAll(fakeFile(0), [Buffer.from('x')])).rejects.toThrow('accepted no bytes');
  });
});

describe('createFileWriter', () => {
  it('writes every chunk in order, merging those that arrive during a write', async () => {
    const file = fakeFile();
    const writer = createFileWriter(file, 1024 * 1024);
    const chunks = Array.from({ length: 10 }, () => randomBytes(1000));
    file.hold();
    for (const chunk of chunks) await writer.write(chunk);
    // One write in flight with the first chunk; the other nine wait for it, then go out as one.
    expect(file.calls).toEqual([1]);
    file.release();
    await writer.end();
    expect(file.calls).toEqual([1, 9]);
    expect(file.bytes().equals(Buffer.concat(chunks))).toBe(true);
  });

  it('makes the caller wait once the high-water mark is queued', async () => {
    const file = fakeFile();
    const writer = createFileWriter(file, 3000);
    file.hold();
    await writer.write(Buffer.alloc(1000)); // in flight
    await writer.write(Buffer.alloc(1000)); // queued: 1000
    let waited = true;
    const third = writer.write(Buffer.alloc(2000)).then(() => (waited = false)); // queued: 3000
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(waited).toBe(true);
    file.release();
    await third;
    expect(waited).toBe(false);
    await writer.end();
    expect(file.bytes().length).toBe(4000);
  });

  it('splits more buffers than one writev takes', async () => {
    const file = fakeFile();
    const writer = createFileWriter(file, Number.POSITIVE_INFINITY);
    file.hold();
    for (let i = 0; i < 2500; i++) await writer.write(Buffer.from([i % 256]));
    file.release();
    await writer.end();
    expect(Math.max(...file.calls)).toBeLessThanOrEqual(1024);
    expect(file.bytes().length).toBe(2500);
  });

  it('reports a failed write at the next call, without an unhandled rejection', async () => {
    const failure = new Error('no space left');
    const file: WritableFile = {
      writev: () => Promise.reject(failure),
    };
    const writer = createFileWriter(file);
    await writer.write(Buffer.from('a'));
    await new Promise((resolve) => setTimeout(resolve, 5));
    await expect(writer.write(Buffer.from('b'))).rejects.toBe(failure);
    await expect(writer.end()).rejects.toBe(failure);
    await expect(writer.abort()).resolves.toBeUndefined();
  });

  it('drops queued chunks on abort and waits for the write in flight', async () => {
    const file = fakeFile();
    const writer = createFileWriter(file, 1024 * 1024);
    file.hold();
    await writer.write(Buffer.from('first'));
    await writer.write(Buffer.from('dropped'));
    let aborted = false;
    const aborting = writer.abort().then(() => (aborted = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(aborted).toBe(false);
    file.release();
    await aborting;
    expect(file.bytes().toString()).toBe('first');
  });
});
