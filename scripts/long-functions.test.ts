import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allLongFunctions, longFunctions } from './long-functions';

describe('the production functions of 80 lines or more (issue 30)', () => {
  it('each say at their head why they stay whole', () => {
    const unexplained = allLongFunctions(80)
      .filter((f) => f.whole === undefined)
      .map((f) => `src/${f.file}:${f.line} ${f.name} (${f.lines} lines)`);
    expect(unexplained).toEqual([]);
  });
});

describe('long-functions.ts', () => {
  const file = path.resolve(import.meta.dirname, '../src/platform/example.ts');
  const body = (lines: number) => Array.from({ length: lines }, (_, i) => `  const a${i} = ${i};`).join('\n');

  it('finds functions of MIN_LINES lines or more, with their name and line', () => {
    const text = [`function short() {\n${body(2)}\n}`, `export function long() {\n${body(8)}\n}`].join('\n');
    expect(longFunctions(file, 10, text)).toEqual([
      { file: 'platform/example.ts', line: 5, name: 'long', lines: 10 },
    ]);
  });

  it('reads "Stays whole:" in a comment before the function, its declaration or its first statement', () => {
    const text = [
      '/**\n * The table.\n * Stays whole: a flat table of routes,\n * each a few lines. More.\n */',
      `export function table() {\n${body(8)}\n}`,
      '// Stays whole: one closure, over\n// long-functions.ts and more.',
      `export const methods = () => {\n${body(8)}\n};`,
      `app.register(async () => {\n  // Stays whole: the forwarding's hooks share its state.\n${body(8)}\n});`,
      `function other() {\n${body(8)}\n}`,
    ].join('\n');
    expect(longFunctions(file, 10, text).map((f) => [f.name, f.whole])).toEqual([
      ['table', 'a flat table of routes, each a few lines'],
      ['methods', 'one closure, over long-functions.ts and more'],
      ['(callback of app.register)', "the forwarding's hooks share its state"],
      ['other', undefined],
    ]);
  });
});
