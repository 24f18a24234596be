/**
 * The platform's folders as drawn from their imports: how many imports go from each folder of
 * `src/platform` to each other, the pairs that import each other both ways, and the floors (a
 * folder stands one floor above the highest folder it imports; issue 30: the folders import one
 * way, in at most six floors). A file directly in `src/platform` (`main.ts`, `health.ts`, …) counts
 * as a folder of its own. Tests and `testing/` are left out: they may reach anywhere.
 *
 *   npx tsx scripts/folder-imports.ts            # the table, the mutual pairs and the floors
 *   npx tsx scripts/folder-imports.ts --values   # imports of types left out
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src/platform');

export interface FolderImport {
  from: string;
  to: string;
  /** Only `import type` / `export type`: gone once compiled, so it ties nothing at run time. */
  typeOnly: boolean;
}

const isSource = (file: string) =>
  /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.endsWith('.d.ts');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(full);
    return isSource(entry.name) ? [full] : [];
  });
}

/** The folder a file of src/platform belongs to: its first path segment (a file of its own at the top). */
export function folderOf(file: string): string {
  const [first, ...rest] = path.relative(root, file).split(path.sep);
  // An import names a file without its extension: `../health` is `health.ts`.
  return rest.length ? first! : `${first!.replace(/\.tsx?$/, '')}.ts`;
}

// `import … from '…'`, `export … from '…'` (both possibly `type`), and `import('…')`.
const specifiers =
  /(?:^|\n)\s*(import|export)\s+(type\s+)?[^'";]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

export function importsOf(file: string, text = readFileSync(file, 'utf8')): FolderImport[] {
  const found: FolderImport[] = [];
  for (const match of text.matchAll(specifiers)) {
    const specifier = match[3] ?? match[4]!;
    if (!specifier.startsWith('.')) continue;
    const target = path.resolve(path.dirname(file), specifier);
    if (!target.startsWith(root + path.sep)) continue;
    const from = folderOf(file);
    const to = folderOf(target);
    if (from !== to) found.push({ from, to, typeOnly: Boolean(match[2]) });
  }
  return found;
}

/** Imports counted by "from → to". */
export function folderImports({ values = false } = {}): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of sourceFiles(root)) {
    for (const edge of importsOf(file)) {
      if (values && edge.typeOnly) continue;
      const key = `${edge.from} → ${edge.to}`;
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

/** The pairs of folders that import each other, each named once ("a ↔ b"). */
export function mutualPairs(counts: Map<string, number>): string[] {
  const pairs: string[] = [];
  for (const key of counts.keys()) {
    const [from, to] = key.split(' → ') as [string, string];
    if (from < to && counts.has(`${to} → ${from}`)) pairs.push(`${from} ↔ ${to}`);
  }
  return pairs.sort();
}

/**
 * Each folder's floor: 1 for a folder that imports no other, else one above the highest it
 * imports. A loop of folders has no floor: it throws, naming a folder on it.
 */
export function floorsOf(counts: Map<string, number>): Map<string, number> {
  const imported = new Map<string, string[]>();
  for (const key of counts.keys()) {
    const [from, to] = key.split(' → ') as [string, string];
    imported.set(from, [...(imported.get(from) ?? []), to]);
    if (!imported.has(to)) imported.set(to, []);
  }
  const floors = new Map<string, number>();
  const visiting = new Set<string>();
  const floorOf = (folder: string): number => {
    const known = floors.get(folder);
    if (known !== undefined) return known;
    if (visiting.has(folder)) throw new Error(`the folders import each other in a loop through ${folder}`);
    visiting.add(folder);
    const floor = 1 + Math.max(0, ...imported.get(folder)!.map(floorOf));
    visiting.delete(folder);
    floors.set(folder, floor);
    return floor;
  };
  for (const folder of imported.keys()) floorOf(folder);
  return floors;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const counts = folderImports({ values: process.argv.includes('--values') });
  for (const [key, count] of [...counts].sort()) console.log(`${String(count).padStart(4)}  ${key}`);
  const pairs = mutualPairs(counts);
  console.log(`\n${pairs.length} mutual folder pair(s)${pairs.length ? ':' : ''}`);
  for (const pair of pairs) console.log(`  ${pair}`);
  // Two folders that import each other stand on no floors at all.
  if (!pairs.length) {
    const floors = [...floorsOf(counts)].sort(([a, x], [b, y]) => y - x || a.localeCompare(b));
    console.log(`\n${floors[0]?.[1] ?? 0} floor(s), from the top:`);
    for (const [folder, floor] of floors) console.log(`  ${floor}  ${folder}`);
  }
}
