import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { floorsOf, folderImports, importsOf, mutualPairs } from './folder-imports';

const platform = path.resolve(import.meta.dirname, '../src/platform');

describe("the platform's folders (docs/architecture.md)", () => {
  it('import one way: no two folders import each other, not even for a type', () => {
    expect(mutualPairs(folderImports())).toEqual([]);
  });

  it('stand in at most six floors, the composition root alone under main.ts', () => {
    const floors = floorsOf(folderImports());
    expect(Math.max(...floors.values())).toBeLessThanOrEqual(6);
    expect(floors.get('main.ts')).toBe(floors.get('composition')! + 1);
  });

  it('leave the choice of implementations to the composition root: only main.ts imports composition/', () => {
    const intoComposition = [...folderImports().keys()].filter((key) => key.endsWith('→ composition'));
    expect(intoComposition).toEqual(['main.ts → composition']);
  });
});

describe('folder-imports.ts', () => {
  const file = path.join(platform, 'assets/example.ts');

  it('counts imports, re-exports and import() by the folder they reach, types apart', () => {
    const text = [
      "import { notFound } from '../http/errors';",
      "import type { DB } from '../db/database';",
      "export { idParams } from '../http/route-schemas';",
      "const pool = await import('../media/pdf-thumbnail-pool');",
      "import { sibling } from './asset-records';",
      "import { z } from 'zod';",
    ].join('\n');
    expect(importsOf(file, text)).toEqual([
      { from: 'assets', to: 'http', typeOnly: false },
      { from: 'assets', to: 'db', typeOnly: true },
      { from: 'assets', to: 'http', typeOnly: false },
      { from: 'assets', to: 'media', typeOnly: false },
    ]);
  });

  it('puts each folder one floor above the highest it imports, and refuses a loop', () => {
    const counts = (...keys: string[]) => new Map(keys.map((key) => [key, 1]));
    expect(floorsOf(counts('a → b', 'b → c', 'a → c', 'd → c'))).toEqual(
      new Map([
        ['a', 3],
        ['b', 2],
        ['c', 1],
        ['d', 2],
      ]),
    );
    expect(() => floorsOf(counts('a → b', 'b → c', 'c → a'))).toThrow(/loop/);
  });

  it('names a pair once, whichever way it was found', () => {
    const counts = new Map([
      ['a → b', 1],
      ['b → a', 2],
      ['b → c', 1],
    ]);
    expect(mutualPairs(counts)).toEqual(['a ↔ b']);
  });
});
