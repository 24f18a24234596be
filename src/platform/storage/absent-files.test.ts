import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openIfPresent } from './absent-files';

describe('openIfPresent', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'absent-files-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('opens a file that is there, for reading', async () => {
    writeFileSync(join(dir, 'here'), 'bytes');
    const handle = await openIfPresent(join(dir, 'here'));
    try {
      expect(await handle?.readFile('utf8')).toBe('bytes');
    } finally {
      await handle?.close();
    }
  });

  it('answers undefined for a file that is not there, or a path through a file', async () => {
    writeFileSync(join(dir, 'file'), '');
    expect(await openIfPresent(join(dir, 'missing'))).toBeUndefined();
    expect(await openIfPresent(join(dir, 'file', 'below'))).toBeUndefined();
  });

  it('fails on anything else, here a symbolic link that points to itself', async () => {
    symlinkSync(join(dir, 'loop'), join(dir, 'loop'));
    await expect(openIfPresent(join(dir, 'loop'))).rejects.toMatchObject({ code: 'ELOOP' });
  });
});
