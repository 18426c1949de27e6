/**
 * The pieces every part of the schema code generator shares (generate.ts writes and measures,
 * generate-read.ts reads): the Emitter that collects lines, locals and constants, the literal and
 * path formatters, own-property access, and the statements that hand the bit state between the
 * generated code's locals and the BitWriter / BitReader.
 */
import { bitsRequired } from '../bits/bits-required.js';
import type { SchemaNode } from './schema.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export class Emitter {
  readonly lines: string[] = [];
  /** Write side: values queued to be packed together (their bits sum to at most 32). */
  readonly pending: { value: string; bits: number }[] = [];
  pendingBits = 0;
  /** Read side: the leaf widths of the fused run being read, and where the reading is in it. */
  plan: ReadPlan | null = null;
  /** Read side: emitting the read into fresh values (no target to fill), so targets go unchecked. */
  fresh = false;
  readonly constants: unknown[] = [];
  private next = 0;
  private depth = 1;

  local(prefix: string): string {
    return `${prefix}${this.next++}`;
  }

  constant(value: unknown): string {
    this.constants.push(value);
    return `k[${this.constants.length - 1}]`;
  }

  line(text: string): void {
    this.lines.push('  '.repeat(this.depth) + text);
  }

  open(text: string): void {
    this.line(text);
    this.depth++;
  }

  close(text = '}'): void {
    this.depth--;
    this.line(text);
  }
}

/** A number as an exact JavaScript literal (shortest round-tripping form). */
export const num = (x: number): string => (Object.is(x, -0) ? '-0' : x < 0 ? `(${x})` : String(x));
export const str = (text: string): string => JSON.stringify(text);
export const member = (object: string, key: string): string =>
  IDENTIFIER.test(key) ? `${object}.${key}` : `${object}[${str(key)}]`;
/**
 * Fields are read as own properties only, so an inherited one (prototype pollution) counts as
 * absent. Object.hasOwn per field nearly doubled W1 encode time, so it runs only where it can
 * matter: `clean` (once per call) says no field name of the schema is on Object.prototype, and
 * then an object whose prototype is Object.prototype or null cannot inherit a field. Loading one
 * field first gives the optimiser the object's map, so it folds getPrototypeOf to a constant
 * (without it the test cost 8 ns per entity in W1 encode).
 */
export function emitDirectTest(
  g: Emitter,
  o: string,
  n: SchemaNode & { kind: 'object' },
  maybeNull = false,
): string {
  const direct = `${o}d`;
  const first = Object.keys(n.fields)[0];
  if (first === undefined) {
    g.line(`const ${direct} = false;`);
    return direct;
  }
  g.line(`let ${direct} = false;`);
  g.open(maybeNull ? `if (${o} !== null) {` : '{');
  g.line(`${member(o, first)};`);
  g.line(`const p = Object.getPrototypeOf(${o});`);
  g.line(`${direct} = clean && (p === OP || p === null);`);
  g.close();
  return direct;
}
export const ownMember = (object: string, direct: string, key: string): string =>
  `(${direct} || Object.hasOwn(${object}, ${str(key)}) ? ${member(object, key)} : undefined)`;

/** Every field name in the schema, for the once-per-call prototype test. */
export function fieldNames(n: SchemaNode, out = new Set<string>()): Set<string> {
  if (n.kind === 'object') {
    for (const [key, field] of Object.entries(n.fields)) {
      out.add(key);
      fieldNames(field, out);
    }
  } else if (n.kind === 'array' || n.kind === 'tuple') fieldNames(n.item, out);
  else if (n.kind === 'optional') fieldNames(n.inner, out);
  return out;
}
/** Appends a path segment to a path expression (evaluated only when an error is raised). */
export const pathOf = (path: string, segment: string): string =>
  path === "''" ? str(segment) : `${path} + ${str(segment)}`;
export const indexPath = (path: string, index: string): string =>
  `${path === "''" ? '' : `${path} + `}'[' + ${index} + ']'`;

export const SYNC_WRITER = 'w.scratch = scratch; w.scratchBits = sb; w.wordIndex = wi;';
export const LOAD_WRITER = 'scratch = w.scratch | 0; sb = w.scratchBits; wi = w.wordIndex;';
export const SYNC_READER =
  'r.scratch = scratch; r.scratchBits = sb; r.wordIndex = wi; r.bitsRead = wi * 32 - sb;';
export const LOAD_READER = 'scratch = r.scratch | 0; sb = r.scratchBits; wi = r.wordIndex;';

/** Read side: the leaf widths of a fused run being read, and where the reading is in it. */
export interface ReadPlan {
  readonly widths: number[];
  cursor: number;
  group: string;
  groupBits: number;
  groupEnd: number;
  offset: number;
  /** A block read (over 32 bits): the locals holding its words, in order; else null. */
  block: string[] | null;
}
/** Leaf widths of a fixed-size, loop-free subtree made only of kinds read inline, or null. */
export function fusableWidths(n: SchemaNode, out: number[] = []): number[] | null {
  switch (n.kind) {
    case 'bool':
      out.push(1);
      return out;
    case 'int':
    case 'enum': {
      const bits = n.kind === 'int' ? bitsRequired(n.min, n.max) : bitsRequired(0, n.values.length - 1);
      if (bits > 0) out.push(bits);
      return out;
    }
    case 'entity':
      out.push(bitsRequired(-1, n.ids - 1));
      return out;
    case 'float':
      out.push(n.spec.bits);
      return out;
    case 'float32':
      out.push(32);
      return out;
    case 'object':
      for (const field of Object.values(n.fields)) if (fusableWidths(field, out) === null) return null;
      return out;
    case 'tuple':
      if (n.length > 4) return null;
      for (let i = 0; i < n.length; i++) if (fusableWidths(n.item, out) === null) return null;
      return out;
    default:
      return null;
  }
}
