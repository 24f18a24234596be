/**
 * The production functions of `src` longer than a reader can hold at once (issue 30: about 80
 * lines), longest first, with their file and line. A function counts whole, its inner functions
 * included; an inner function long enough is listed too.
 *
 * A function whose length is its nature (a flat table of routes, an object of short methods over
 * one closure) says so in a comment at its head that contains "Stays whole:" and why; those are
 * listed apart, and long-functions.test.ts fails on any other.
 *
 *   npx tsx scripts/long-functions.ts [MIN_LINES]
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../src');

export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
  /** The reason its head comment gives for staying whole, when it gives one. */
  whole?: string;
}

/** What a head comment says after "Stays whole:", up to the end of its sentence (a dot not in a name). */
const wholeMarker = /Stays whole:\s*(.*?)(?:\.(?:\s|$)|$)/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : sourceFiles(full);
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')
      ? [full]
      : [];
  });
}

function nameOf(node: ts.Node): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name)
    return node.name.getText();
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) return parent.name.getText();
  if (ts.isCallExpression(parent)) return `(callback of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

/**
 * The comments at a function's head: before it, before the declaration or statement it is the
 * value of (`const f = () => …`, `app.register(async () => …)`), and before the first statement
 * of its body.
 */
function headComments(node: ts.Node, text: string): string[] {
  const holders: ts.Node[] = [node];
  for (let up = node.parent; up && !ts.isSourceFile(up) && !ts.isBlock(up); up = up.parent) holders.push(up);
  const body = (node as ts.FunctionLikeDeclaration).body;
  if (body && ts.isBlock(body) && body.statements[0]) holders.push(body.statements[0]);
  // A holder's comments read as one: a reason may run over several `//` lines.
  return holders.map((holder) =>
    (ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? [])
      .map((range) => text.slice(range.pos, range.end))
      .join('\n'),
  );
}

function wholeReason(node: ts.Node, text: string): string | undefined {
  for (const comment of headComments(node, text)) {
    // A comment's lines joined, without their `//` and `*` prefixes.
    const flat = comment.replace(/^\s*(\/\/+|\/\*+|\*+\/?)/gm, ' ').replace(/\s+/g, ' ');
    const match = wholeMarker.exec(flat);
    if (match) return match[1]!.trim();
  }
  return undefined;
}

export function longFunctions(
  file: string,
  minLines: number,
  text = readFileSync(file, 'utf8'),
): LongFunction[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines >= minLines) {
        const whole = wholeReason(node, text);
        found.push({
          file: path.relative(src, file),
          line: start + 1,
          name: nameOf(node),
          lines,
          ...(whole === undefined ? {} : { whole }),
        });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Every production function of `src` of `minLines` lines or more, longest first. */
export function allLongFunctions(minLines: number): LongFunction[] {
  return sourceFiles(src)
    .flatMap((file) => longFunctions(file, minLines))
    .sort((a, b) => b.lines - a.lines);
}

const listed = (f: LongFunction) => `${String(f.lines).padStart(4)}  src/${f.file}:${f.line}  ${f.name}`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const minLines = Number(process.argv[2] ?? 80);
  const all = allLongFunctions(minLines);
  const unexplained = all.filter((f) => f.whole === undefined);
  const whole = all.filter((f) => f.whole !== undefined);
  for (const f of unexplained) console.log(listed(f));
  console.log(`\n${unexplained.length} function(s) of ${minLines} lines or more that do not say why`);
  if (whole.length > 0) {
    console.log(`\nStaying whole, and saying why:`);
    for (const f of whole) console.log(`${listed(f)}: ${f.whole}`);
  }
}
