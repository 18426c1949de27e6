import type { SchemaNode } from '../schema/schema.js';

/**
 * LagCompensation's states kept as numbers in its rings, for schemas whose leaves are all numbers
 * or booleans (floats, ints, bools, fixed tuples and quaternions of them, nested objects): a record
 * then holds no object, and recording touches one run of numbers instead of an object and its
 * boxed floats. Code generated per schema (as the interpolator's); a schema with another leaf
 * (strings, bytes, optionals, variable arrays, enums, int64) keeps objects.
 */
export interface FlatStates<S> {
  /** Numbers per state. */
  readonly numbers: number;
  /** Writes `state`'s numbers at `out[at..]`; a leaf of the wrong type throws a TypeError (the caller's bug). */
  write(state: S, out: Float64Array, at: number): void;
  /** Reads them back into `out`, an object of the schema's shape (as the interpolator makes one). */
  read(from: Float64Array, at: number, out: S): void;
}

/** The generated writer and reader of a flat schema, or null when a leaf is not a number or a boolean. */
export function flatStates<S>(schema: SchemaNode): FlatStates<S> | null {
  const writes: string[] = [];
  const reads: string[] = [];
  let numbers = 0;
  let locals = 0;
  // `value`: the leaf or part as the writer reads it (validated locals); `into`: where the reader puts it.
  const visit = (node: SchemaNode, value: string, into: string, path: string): boolean => {
    const at = JSON.stringify(path || 'value');
    switch (node.kind) {
      case 'float':
      case 'float32':
      case 'float64':
      case 'int':
      case 'entity': {
        const n = `n${locals++}`;
        writes.push(`const ${n} = ${value};`);
        writes.push(`if (typeof ${n} !== 'number') bad(${at}, ${n});`);
        writes.push(`r[o + ${numbers}] = ${n};`);
        reads.push(`${into} = r[o + ${numbers}];`);
        numbers++;
        return true;
      }
      case 'bool': {
        const n = `n${locals++}`;
        writes.push(`const ${n} = ${value};`);
        writes.push(`if (typeof ${n} !== 'boolean') bad(${at}, ${n});`);
        writes.push(`r[o + ${numbers}] = ${n} ? 1 : 0;`);
        reads.push(`${into} = r[o + ${numbers}] !== 0;`);
        numbers++;
        return true;
      }
      case 'quaternion':
      case 'smallestThree':
        return tuple(4, { kind: 'float64' }, value, into, path);
      case 'tuple':
        return tuple(node.length, node.item, value, into, path);
      case 'object': {
        const v = `v${locals++}`;
        const w = `w${locals++}`;
        writes.push(`const ${v} = ${value};`);
        writes.push(`if (typeof ${v} !== 'object' || ${v} === null) bad(${at}, ${v});`);
        reads.push(`const ${w} = ${into};`);
        for (const [key, field] of Object.entries(node.fields)) {
          const k = JSON.stringify(key);
          if (!visit(field, `${v}[${k}]`, `${w}[${k}]`, `${path}.${key}`)) return false;
        }
        return true;
      }
      default:
        return false;
    }
  };
  const tuple = (length: number, item: SchemaNode, value: string, into: string, path: string): boolean => {
    const v = `v${locals++}`;
    const w = `w${locals++}`;
    writes.push(`const ${v} = ${value};`);
    writes.push(`if (!Array.isArray(${v}) || ${v}.length !== ${length}) bad(${JSON.stringify(path)}, ${v});`);
    reads.push(`const ${w} = ${into};`);
    for (let i = 0; i < length; i++)
      if (!visit(item, `${v}[${i}]`, `${w}[${i}]`, `${path}[${i}]`)) return false;
    return true;
  };
  if (schema.kind !== 'object' || !visit(schema, 's', 's', '')) return null;
  const bad = (path: string, value: unknown): never => {
    throw new TypeError(
      `LagCompensation: the state's ${path || 'value'} is not of its schema (got ${typeof value})`,
    );
  };
  const write = new Function('bad', `return function write(s, r, o) {\n${writes.join('\n')}\n};`)(bad);
  const read = new Function(`return function read(r, o, s) {\n${reads.join('\n')}\n};`)();
  return { numbers, write, read } as FlatStates<S>;
}
