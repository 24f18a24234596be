import { validationFailed } from '../http/errors';

/**
 * The text fields of a multipart create request, in the forms form encoders send them
 * (decisions.md, issue 11): flat (`file_type`), wrapped (`asset[file_type]`), `meta` as one JSON
 * string, or `meta` as bracketed fields (`meta[crop][x]=10`, `asset[meta][alt]=Logo`), the
 * conventional encoding of nested data (Rails, PHP, qs). Nothing is ever dropped: a name or a shape
 * that cannot be read is a 422 naming it.
 */

/** `base[key][key]…`: a name, then any number of bracketed keys. */
const namePattern = /^([A-Za-z_][A-Za-z0-9_]*)((?:\[[^[\]]*\])*)$/;
/** Canonical integers only, so that "01", "1.0" or "1e1" still fail the crop check by name. */
const integerPattern = /^(0|-?[1-9][0-9]{0,14})$/;
const cropKeys = new Set(['x', 'y', 'width', 'height']);

type Tree = Record<string, unknown>;

const dotted = (path: string[]) => path.join('.');
const refuse = (field: string, message: string) => validationFailed([{ field, message }]);
const isTree = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A field name as a path: `asset[meta][crop][x]` → ['meta', 'crop', 'x']. Undefined when unreadable. */
export function fieldPath(name: string): string[] | undefined {
  const match = namePattern.exec(name);
  if (!match) return undefined;
  const keys = [...match[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!);
  const path = [match[1]!, ...keys];
  return path[0] === 'asset' && path.length > 1 ? path.slice(1) : path;
}

export class MultipartFields {
  private readonly flat: Tree = {};
  private bracketedMeta: Tree | undefined;

  /** Adds one text field; throws a 422 for a name or a combination that cannot be read. */
  add(name: string, value: unknown) {
    const path = fieldPath(name);
    if (!path) {
      // Unknown flat names are ignored as before; a broken attempt at nesting is not.
      if (/^(asset|meta)\[/.test(name)) throw refuse(name, 'is not a well-formed field name');
      return this.addFlat(name, value);
    }
    // Assigned, `__proto__` would replace an object's prototype instead of naming a key.
    if (path.includes('__proto__')) throw refuse(name, 'is not an accepted field name');
    if (path.length === 1) return this.addFlat(path[0]!, value);
    if (path[0] !== 'meta') throw refuse(path[0]!, 'takes no bracketed keys: only meta holds nested fields');
    if (path.some((key) => key === ''))
      throw refuse(dotted(path.slice(0, path.indexOf(''))), 'lists ([]) are not accepted in meta');
    if ('meta' in this.flat) throw mixedMeta();
    this.addMeta(path, value);
  }

  /** The fields, with bracketed meta as an object (the crop's keys as numbers when they are integers). */
  result(): Tree {
    if (!this.bracketedMeta) return { ...this.flat };
    return { ...this.flat, meta: withNumericCrop(this.bracketedMeta) };
  }

  private addFlat(name: string, value: unknown) {
    if (name === 'meta' && this.bracketedMeta) throw mixedMeta();
    if (Object.hasOwn(this.flat, name)) throw refuse(name, 'is given more than once');
    this.flat[name] = value;
  }

  private addMeta(path: string[], value: unknown) {
    this.bracketedMeta ??= {};
    let node = this.bracketedMeta;
    for (let i = 1; i < path.length - 1; i++) {
      const key = path[i]!;
      const next = Object.hasOwn(node, key) ? node[key] : undefined;
      if (next === undefined) node[key] = {};
      else if (!isTree(next))
        throw refuse(dotted(path.slice(0, i + 1)), 'is given both as a value and as an object');
      node = node[key] as Tree;
    }
    const last = path[path.length - 1]!;
    if (Object.hasOwn(node, last)) {
      const problem = isTree(node[last])
        ? 'is given both as a value and as an object'
        : 'is given more than once';
      throw refuse(dotted(path), problem);
    }
    node[last] = value;
  }
}

const mixedMeta = () =>
  refuse('meta', 'is sent both as one JSON field and as bracketed fields: send one form or the other');

/**
 * Multipart values are strings; a crop is four integers. Only there are canonical integer strings
 * turned into numbers: anything else stays as sent and fails the crop check by name, and every
 * other meta value stays a string.
 */
function withNumericCrop(meta: Tree): Tree {
  const crop = meta.crop;
  if (!isTree(crop)) return meta;
  const converted: Tree = {};
  for (const [key, value] of Object.entries(crop)) {
    const numeric = cropKeys.has(key) && typeof value === 'string' && integerPattern.test(value);
    converted[key] = numeric ? Number(value) : value;
  }
  return { ...meta, crop: converted };
}
