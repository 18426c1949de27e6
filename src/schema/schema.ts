import {
  type CompressedFloat,
  type CompressedFloatOptions,
  compressedFloat,
} from '../serialize/compressed-float.js';
import { decodeBound } from './size.js';

/**
 * Schemas are plain values describing a wire layout; their TypeScript type is inferred (no
 * decorators, no code-generation step). `compile` turns one into specialised write / read /
 * measure functions.
 */
export type SchemaNode =
  | { readonly kind: 'bool' }
  | { readonly kind: 'int'; readonly min: number; readonly max: number }
  | { readonly kind: 'int64'; readonly min: bigint; readonly max: bigint }
  | { readonly kind: 'float32' }
  | { readonly kind: 'float64' }
  | { readonly kind: 'float'; readonly spec: CompressedFloat }
  | { readonly kind: 'string'; readonly maxBytes: number }
  | { readonly kind: 'bytes'; readonly maxLength: number }
  | { readonly kind: 'enum'; readonly values: readonly (string | number)[] }
  | { readonly kind: 'quaternion' }
  | { readonly kind: 'smallestThree'; readonly bits: number }
  | { readonly kind: 'object'; readonly fields: Readonly<Record<string, SchemaNode>> }
  | { readonly kind: 'array'; readonly item: SchemaNode; readonly maxLength: number }
  | { readonly kind: 'tuple'; readonly item: SchemaNode; readonly length: number }
  | { readonly kind: 'optional'; readonly inner: SchemaNode }
  /** An entity's id (`ids` of them, 0..ids-1) or -1 for none; sent as an int in [-1, ids - 1]. */
  | { readonly kind: 'entity'; readonly ids: number };

declare const TYPE: unique symbol;

/** A schema node carrying, for the type checker only, the TypeScript type of its values. */
export type Schema<T> = SchemaNode & { readonly [TYPE]?: T };

/** The value type of a schema: `type Entity = Infer<typeof Entity>`. */
export type Infer<S> = S extends Schema<infer T> ? T : never;

type Fields = Record<string, Schema<unknown>>;
type OptionalKeys<F extends Fields> = {
  [K in keyof F]: F[K] extends { kind: 'optional' } ? K : never;
}[keyof F];
type Simplify<T> = { [K in keyof T]: T[K] } & {};
type ObjectOf<F extends Fields> = Simplify<
  { [K in Exclude<keyof F, OptionalKeys<F>>]: Infer<F[K]> } & { [K in OptionalKeys<F>]?: Infer<F[K]> }
>;
type TupleOf<T, N extends number, Acc extends T[] = []> = number extends N
  ? T[]
  : Acc['length'] extends N
    ? Acc
    : TupleOf<T, N, [...Acc, T]>;

const MAX_COUNT = 0xffffffff;

/** The value of an entity reference that names no entity. */
export const NO_ENTITY = -1;
/**
 * Ids a `t.entity()` can name before a game binds it to its `maxEntities`: the most a game may
 * declare, so an unbound reference carries any game's ids (17 bits).
 */
export const UNBOUND_ENTITY_IDS = 65536;
/** The most ids an entity reference can name: with none, 2^32 values, 32 bits. */
export const MAX_ENTITY_IDS = 0xffffffff;

/** An entity reference naming `ids` ids; a RangeError for a count outside [1, MAX_ENTITY_IDS]. */
export function entityNode(ids: number): Schema<number> {
  if (!Number.isInteger(ids) || ids < 1 || ids > MAX_ENTITY_IDS)
    throw new RangeError(`entity reference: ids must be an integer in [1, ${MAX_ENTITY_IDS}], got ${ids}`);
  return node({ kind: 'entity', ids });
}

/** The int node an entity reference is written as: -1 (none), then the ids. */
export function entityAsInt(n: { readonly ids: number }): SchemaNode {
  return { kind: 'int', min: NO_ENTITY, max: n.ids - 1 };
}

function checkCount(what: string, value: number, limit = MAX_COUNT): number {
  if (!Number.isInteger(value) || value < 0 || value > limit) {
    throw new RangeError(`${what} must be an integer in [0, ${limit}], got ${value}`);
  }
  return value;
}

function node<T>(n: SchemaNode): Schema<T> {
  return Object.freeze(n) as Schema<T>;
}

/** A composite node, refused here when decoding it could cost more than its input pays for. */
function composite<T>(n: SchemaNode): Schema<T> {
  decodeBound(n);
  return node(n);
}

/** An integer in [min, max], sent in bitsRequired(min, max) bits. */
function int(min: number, max: number): Schema<number> {
  if (!Number.isSafeInteger(min) || !Number.isSafeInteger(max) || max < min || max - min > MAX_COUNT) {
    throw new RangeError(`t.int needs safe integers min <= max with max - min < 2^32, got [${min}, ${max}]`);
  }
  return node({ kind: 'int', min, max });
}

function int64(min: bigint, max: bigint): Schema<bigint> {
  if (min < -(1n << 63n) || max >= 1n << 64n || max < min || max - min >= 1n << 64n) {
    throw new RangeError(`t.int64 needs min <= max within 64 bits, got [${min}, ${max}]`);
  }
  return node({ kind: 'int64', min, max });
}

export const t = {
  bool: (): Schema<boolean> => node({ kind: 'bool' }),
  int,
  /** An unsigned integer of `bits` bits (1..32). */
  bits: (bits: number): Schema<number> => {
    if (!(Number.isInteger(bits) && bits >= 1 && bits <= 32))
      throw new RangeError(`t.bits width must be 1..32, got ${bits}`);
    return int(0, 2 ** bits - 1);
  },
  uint8: (): Schema<number> => int(0, 0xff),
  uint16: (): Schema<number> => int(0, 0xffff),
  uint32: (): Schema<number> => int(0, 0xffffffff),
  int64,
  uint64: (): Schema<bigint> => int64(0n, (1n << 64n) - 1n),
  float32: (): Schema<number> => node({ kind: 'float32' }),
  float64: (): Schema<number> => node({ kind: 'float64' }),
  /**
   * A float quantized to [min, max] at `resolution` (serialize's compressed float). Writing a value
   * outside the range throws unless `{ clamp: true }`; NaN and ±Infinity throw either way.
   */
  float: (min: number, max: number, resolution: number, options?: CompressedFloatOptions): Schema<number> =>
    node({ kind: 'float', spec: compressedFloat(min, max, resolution, options) }),
  /** UTF-8 text of at most `maxBytes` bytes. */
  string: (maxBytes: number): Schema<string> =>
    node({ kind: 'string', maxBytes: checkCount('t.string maxBytes', maxBytes) }),
  /** A byte array of 0..maxLength bytes. */
  bytes: (maxLength: number): Schema<Uint8Array> =>
    node({ kind: 'bytes', maxLength: checkCount('t.bytes maxLength', maxLength) }),
  /** One of a fixed list of values, sent as its index. */
  enum: <const V extends readonly (string | number)[]>(values: V): Schema<V[number]> => {
    if (values.length === 0 || new Set(values).size !== values.length) {
      throw new RangeError('t.enum needs a non-empty list of distinct values');
    }
    return node({ kind: 'enum', values: Object.freeze([...values]) });
  },
  /** Three components of one number schema (e.g. `t.vector3(t.float(-512, 512, 0.01))`). */
  vector3: (component: Schema<number> = t.float32()): Schema<[number, number, number]> =>
    composite({ kind: 'tuple', item: component, length: 3 }),
  /** A quaternion [x, y, z, w] as four float32. */
  quaternion: (): Schema<[number, number, number, number]> => node({ kind: 'quaternion' }),
  /** A unit quaternion [x, y, z, w] in smallest-three form: 2 + 3 × `bits` bits (29 at 9). */
  smallestThree: (bits = 9): Schema<[number, number, number, number]> => {
    if (!(Number.isInteger(bits) && bits >= 2 && bits <= 16)) {
      throw new RangeError(`t.smallestThree bits per component must be 2..16, got ${bits}`);
    }
    return node({ kind: 'smallestThree', bits });
  },
  object: <F extends Fields>(fields: F): Schema<ObjectOf<F>> => {
    for (const name of Object.keys(fields)) {
      // An absent field named like an Object.prototype member would read the inherited member.
      if (name in Object.prototype) throw new RangeError(`t.object: a field may not be named ${name}`);
      // JavaScript orders array-index keys first, so the wire order would not be the declared one.
      if (/^(0|[1-9][0-9]*)$/.test(name)) {
        throw new RangeError(`t.object: a field may not be named like an array index (${name})`);
      }
    }
    return composite({ kind: 'object', fields: Object.freeze({ ...fields }) });
  },
  /** 0..maxLength items. */
  /** 0..maxLength items; each item must take at least one bit (see docs/serialization.md, decode bound). */
  array: <T>(item: Schema<T>, maxLength: number): Schema<T[]> =>
    composite({ kind: 'array', item, maxLength: checkCount('t.array maxLength', maxLength) }),
  /** Exactly `length` items, no count on the wire. */
  tuple: <T, N extends number>(item: Schema<T>, length: N): Schema<TupleOf<T, N>> =>
    composite({ kind: 'tuple', item, length: checkCount('t.tuple length', length, 0xffff) }),
  /**
   * An entity's id, or -1 (`NO_ENTITY`) for none. In a game (`defineGame`) it is sent in
   * bitsRequired(-1, maxEntities - 1) bits (11 at the default 1024), and a zoned world translates it
   * between zones and for each client; the client finds the entity by its `id`.
   */
  entity: (): Schema<number> => entityNode(UNBOUND_ENTITY_IDS),
  /** A value or undefined, behind one presence bit (null is sent as absent too). */
  optional: <T>(inner: Schema<T>): Schema<T | undefined> & { kind: 'optional' } =>
    composite({ kind: 'optional', inner }) as Schema<T | undefined> & { kind: 'optional' },
};
