import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderImports, importsOf, mutualPairs } from './folder-imports';

const platform = path.resolve(import.meta.dirname, '../src/platform');

describe("the platform's folders (docs/architecture.md)", () => {
  it('import one way: no two folders import each other, apart from types', () => {
    expect(mutualPairs(folderImports({ values: true }))).toEqual([]);
  });

  it('leave the choice of implementations to the composition root: only it imports wiring/', () => {
    const intoWiring = [...folderImports().keys()].filter((key) => key.endsWith('→ wiring'));
    expect(intoWiring).toEqual(['(root) → wiring']);
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

  it('names a pair once, whichever way it was found', () => {
    const counts = new Map([
      ['a → b', 1],
      ['b → a', 2],
      ['b → c', 1],
    ]);
    expect(mutualPairs(counts)).toEqual(['a ↔ b']);
  });
});
