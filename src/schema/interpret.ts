import { BitWriterOverflowError } from '../bits/bit-writer.js';
import { serializeQuaternion, serializeSmallestThree } from '../serialize/quaternion.js';
import type { Stream } from '../serialize/stream.js';
import { NO_ENTITY, type SchemaNode } from './schema.js';
import { minBits } from './size.js';

const EMPTY = new Uint8Array(0);

/** minBits per array item schema, computed once: read per array, not per item. */
const itemMinBits = new WeakMap<SchemaNode, number>();
function minBitsOf(n: SchemaNode): number {
  let bits = itemMinBits.get(n);
  if (bits === undefined) {
    bits = minBits(n);
    itemMinBits.set(n, bits);
  }
  return bits;
}
/** Captured at load, so a later change to Object.prototype cannot replace it; cheaper than Object.hasOwn here. */
const hasOwn = Object.prototype.hasOwnProperty;

/** A write-side misuse, carrying the path of the offending value. */
export class SchemaValueError extends RangeError {
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(`${path || 'value'}: ${detail}`);
    this.name = 'SchemaValueError';
  }
}

function withPath(error: unknown, segment: string): never {
  if (error instanceof BitWriterOverflowError) throw error;
  if (error instanceof SchemaValueError) throw new SchemaValueError(segment + error.path, error.detail);
  if (error instanceof Error) throw new SchemaValueError(segment, error.message);
  throw error;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isVector = (v: unknown): v is number[] => Array.isArray(v) || ArrayBuffer.isView(v);

/**
 * The schema walked at run time over any {@link Stream}: the path used where generated code is
 * not allowed (a Content-Security-Policy without 'unsafe-eval'), and for measuring through a
 * MeasureStream. It produces the same bits as the compiled functions.
 */
// biome-ignore lint/suspicious/noExplicitAny: values are checked against the schema as they are walked
export function serializeNode(s: Stream, n: SchemaNode, value: any): any {
  const writing = !s.isReading;
  switch (n.kind) {
    case 'bool':
      if (writing && typeof value !== 'boolean')
        throw new SchemaValueError('', `expected a boolean, got ${typeof value}`);
      return s.bool(value);
    case 'int':
      return s.int(value, n.min, n.max);
    case 'entity':
      if (writing && !(Number.isInteger(value) && value >= NO_ENTITY && value < n.ids))
        throw new SchemaValueError(
          '',
          `entity id ${String(value)} is not -1 (none) or an integer below ${n.ids}`,
        );
      return s.int(value, NO_ENTITY, n.ids - 1);
    case 'int64':
      if (writing && typeof value !== 'bigint')
        throw new SchemaValueError('', `expected a bigint, got ${typeof value}`);
      return s.int64(value, n.min, n.max);
    case 'float32':
    case 'float64':
    case 'float':
      if (writing && typeof value !== 'number')
        throw new SchemaValueError('', `expected a number, got ${typeof value}`);
      return n.kind === 'float32'
        ? s.float32(value)
        : n.kind === 'float64'
          ? s.float64(value)
          : s.compressedFloat(value, n.spec);
    case 'string':
      if (writing && typeof value !== 'string')
        throw new SchemaValueError('', `expected a string, got ${typeof value}`);
      return s.string(value, n.maxBytes);
    case 'bytes': {
      if (writing && !(value instanceof Uint8Array)) throw new SchemaValueError('', 'expected a Uint8Array');
      if (writing && value.length > n.maxLength) {
        throw new SchemaValueError('', `${value.length} bytes exceed maxLength ${n.maxLength}`);
      }
      const length = s.int(writing ? value.length : 0, 0, n.maxLength);
      return s.bytes(writing ? value : EMPTY, length);
    }
    case 'enum': {
      const index = writing ? n.values.indexOf(value) : 0;
      if (writing && index < 0)
        throw new SchemaValueError('', `${String(value)} is not one of the enum's values`);
      return n.values[s.int(index, 0, n.values.length - 1)];
    }
    case 'quaternion':
    case 'smallestThree': {
      if (writing && !(isVector(value) && value.length === 4))
        throw new SchemaValueError('', 'expected [x, y, z, w]');
      const q = writing || (isVector(value) && value.length === 4) ? value : [0, 0, 0, 1];
      return n.kind === 'quaternion' ? serializeQuaternion(s, q) : serializeSmallestThree(s, q, n.bits);
    }
    case 'object': {
      if (writing && !isObject(value)) throw new SchemaValueError('', 'expected an object');
      const o = isObject(value) ? value : {};
      for (const key in n.fields) {
        // Own properties only, of the schema and of the value: inherited ones (prototype pollution)
        // are neither fields nor values.
        if (!hasOwn.call(n.fields, key)) continue;
        let v: unknown;
        try {
          v = serializeNode(s, n.fields[key], hasOwn.call(o, key) ? o[key] : undefined);
        } catch (error) {
          withPath(error, `.${key}`);
        }
        if (!writing) o[key] = v;
        if (!s.ok) break;
      }
      return o;
    }
    case 'array':
    case 'tuple': {
      const fixed = n.kind === 'tuple';
      const limit = fixed ? n.length : n.maxLength;
      // A tuple may be a typed array (vectors); a variable array is a plain Array in both modes.
      const shaped = fixed
        ? isVector(value) && value.length === limit
        : Array.isArray(value) && value.length <= limit;
      if (writing && !shaped) {
        throw new SchemaValueError(
          '',
          fixed
            ? `expected an array of exactly ${limit} items`
            : `expected an array of at most ${limit} items`,
        );
      }
      const count = fixed ? limit : s.int(writing ? value.length : 0, 0, limit);
      if (s.isReading && !fixed && count > 0) {
        // Refuse a count the input cannot pay for before building any item: an item's zero-bit
        // parts (a tuple of constants) would otherwise be built and then thrown away, beyond the
        // decode bound the compiled codec keeps (its length check comes first).
        const need = count * minBitsOf(n.item);
        const remaining = (s as unknown as { readonly bitsRemaining: number }).bitsRemaining;
        if (need > remaining) {
          s.fail(`array of ${count} items needs at least ${need} bits, ${remaining} remain`);
          return writing ? value : [];
        }
      }
      let a = value;
      if (!writing) {
        // Reuse the caller's array: a tuple of the right length (typed arrays too), or any array.
        if (fixed ? !(isVector(a) && a.length === limit) : !Array.isArray(a)) a = [];
        else if (a.length > count) (a as unknown[]).length = count;
      }
      for (let i = 0; i < count && s.ok; i++) {
        try {
          const v = serializeNode(s, n.item, a[i]);
          if (!writing) a[i] = v;
        } catch (error) {
          withPath(error, `[${i}]`);
        }
      }
      return a;
    }
    case 'optional': {
      const present = s.bool(value !== undefined && value !== null);
      return present ? serializeNode(s, n.inner, value) : undefined;
    }
  }
}
