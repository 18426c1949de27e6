import { codegenAvailable } from '../schema/codec.js';
import type { Schema, SchemaNode } from '../schema/schema.js';
import { interpolateSource, plainObjectMaker } from './interpolation-codegen.js';

/**
 * Blending two states of one schema, compiled once per entity type. At fraction 0 the result is
 * the older state exactly and at 1 the newer (every number the same, -0 included, a quantized
 * float within its range); a snapped part is its sample's value exactly. Per kind: floats linear
 * (extrapolated past fraction 1, a quantized float clamped to its range), quaternions along the
 * shortest arc (normalized lerp after a sign flip; held at the newer past 1), everything else
 * snapped: the older value while fraction < 1, the newer from 1 on (a state holds until the next
 * one). Objects, tuples and equal-length arrays blend member-wise; arrays of different lengths and
 * optionals present on one side only snap. Outputs are written into the caller's object, reusing
 * its nested objects and arrays, so after the first call nothing is allocated.
 *
 * Two implementations give the same results: code generated per schema (interpolation-codegen.ts),
 * which stores each float where it goes, and the closures below, for runtimes that forbid
 * `new Function` (a strict Content-Security-Policy). A closure returning a float boxes it.
 */

/** The generated blend of a whole value: the fraction in `fraction[0]`. */
type GeneratedBlend = (from: unknown, to: unknown, fraction: Float64Array, out: unknown) => unknown;

/** Blends one node: `from` and `to` at `fraction`, into `out` where its shape allows; returns the result. */
type Blend = (from: unknown, to: unknown, fraction: number, out: unknown) => unknown;

export interface InterpolatorOptions {
  /**
   * A top-level boolean field that the server toggles on a teleport: when it differs between the
   * two states the whole value snaps (no sliding across the map).
   */
  teleportField?: string;
  /**
   * Generate specialised code (default: whenever the runtime allows `new Function`). `false`
   * forces the closures, which give the same results but box each float they blend.
   */
  codegen?: boolean;
}

export interface Interpolator<T> {
  readonly schema: Schema<T>;
  /** True when `interpolate` is generated code, false when the closures run. */
  readonly compiled: boolean;
  /**
   * Writes the blend of `from` and `to` at `fraction` (0 = from, 1 = to, above 1 extrapolates
   * floats) into `out` and returns it. `fraction` must be finite and >= 0 (RangeError otherwise).
   * For a blend that allocates nothing, pass `undefined` the first time and keep the object
   * returned: V8 may store the floats of a caller's `{}` boxed (see plainObjectMaker).
   */
  interpolate(from: T, to: T, fraction: number, out: T): T;
}

const isArrayLike = (v: unknown): v is ArrayLike<number> & Record<number, unknown> =>
  Array.isArray(v) || ArrayBuffer.isView(v);

const snapScalar: Blend = (from, to, fraction) => (fraction < 1 ? from : to);

/**
 * The float blend. At fraction 0 it is `a` and at 1 it is `b`, the very number (-0 included: `-0 +
 * 0` would be +0), so a blend at an end is that state bit for bit, and so is a snapped lane, which
 * is its sample blended with itself at 0. Elsewhere from the nearer end's side, so equal values
 * give themselves (up to the sign of a zero). `a * 1` is `a` exactly, but computed as a double:
 * returning the loaded `a` itself made V8 box the results of the blend (measured with
 * bench/interpolation.ts: 32 B per generated blend instead of 0, 48 B more per closure blend).
 */
function mix(a: number, b: number, f: number): number {
  return f < 0.5 ? (f === 0 ? a * 1 : a + (b - a) * f) : f === 1 ? b * 1 : b + (b - a) * (f - 1);
}

const linear: Blend = (from, to, fraction) => mix(from as number, to as number, fraction);

function clampedLinear(min: number, max: number): Blend {
  return (from, to, fraction) => {
    const v = mix(from as number, to as number, fraction);
    return v < min ? min : Math.min(v, max);
  };
}

function badFraction(fraction: number): never {
  throw new RangeError(`interpolate: fraction must be finite and >= 0, got ${fraction}`);
}

/** The bytes of `v` in `out` when it has the length, else in a new array. */
function copyBytes(v: Uint8Array, out: unknown): Uint8Array {
  const r = out instanceof Uint8Array && out.length === v.length ? out : new Uint8Array(v.length);
  r.set(v);
  return r;
}

/** An array of `length` to write into: `out` when it fits, else a new one. */
function target(out: unknown, length: number): Record<number, unknown> & { length: number } {
  if (Array.isArray(out)) {
    if (out.length !== length) out.length = length;
    return out;
  }
  if (ArrayBuffer.isView(out) && (out as unknown as ArrayLike<number>).length === length)
    return out as unknown as Record<number, unknown> & { length: number };
  return new Array(length);
}

/** Shortest-arc blend of two [x, y, z, w]: flip `to` when the two lie in opposite hemispheres. */
const quaternion: Blend = (from, to, fraction, out) => {
  const a = from as ArrayLike<number>;
  const b = to as ArrayLike<number>;
  const r = isArrayLike(out) && out.length === 4 ? out : target(out, 4);
  // The ends are the states themselves, exactly (held from 1 on: rotations are not extrapolated).
  if (fraction === 0 || fraction >= 1) {
    const v = fraction === 0 ? a : b;
    r[0] = v[0];
    r[1] = v[1];
    r[2] = v[2];
    r[3] = v[3];
    return r;
  }
  const f = fraction;
  const sign = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3] < 0 ? -1 : 1;
  const x = a[0] + (sign * b[0] - a[0]) * f;
  const y = a[1] + (sign * b[1] - a[1]) * f;
  const z = a[2] + (sign * b[2] - a[2]) * f;
  const w = a[3] + (sign * b[3] - a[3]) * f;
  const length = Math.sqrt(x * x + y * y + z * z + w * w);
  // Two zero (or opposite non-unit float32) quaternions: nothing to normalize, snap.
  const source = length > 1e-9 ? null : a;
  r[0] = source === null ? x / length : source[0];
  r[1] = source === null ? y / length : source[1];
  r[2] = source === null ? z / length : source[2];
  r[3] = source === null ? w / length : source[3];
  return r;
};

function compileNode(node: SchemaNode): Blend {
  switch (node.kind) {
    case 'float32':
    case 'float64':
      return linear;
    case 'float':
      return clampedLinear(node.spec.min, node.spec.maxDecoded);
    case 'quaternion':
    case 'smallestThree':
      return quaternion;
    case 'object':
      return compileObject(node.fields, undefined);
    case 'tuple':
    case 'array': {
      const item = compileNode(node.item);
      const blend: Blend = (from, to, fraction, out) => {
        const a = from as Record<number, unknown> & { length: number };
        const b = to as Record<number, unknown> & { length: number };
        if (a.length !== b.length) {
          const v = fraction < 1 ? from : to;
          return blend(v, v, 0, out);
        }
        const r = target(out, a.length);
        for (let i = 0; i < a.length; i++) r[i] = item(a[i], b[i], fraction, r[i]);
        return r;
      };
      return blend;
    }
    case 'optional': {
      const inner = compileNode(node.inner);
      return (from, to, fraction, out) => {
        if (from == null || to == null) {
          const v = fraction < 1 ? from : to;
          return v == null ? undefined : inner(v, v, 0, out);
        }
        return inner(from, to, fraction, out);
      };
    }
    case 'bytes':
      return (from, to, fraction, out) => copyBytes((fraction < 1 ? from : to) as Uint8Array, out);
    default:
      // bool, int, int64, enum, string: discrete, immutable values.
      return snapScalar;
  }
}

function compileObject(
  fields: Readonly<Record<string, SchemaNode>>,
  teleportField: string | undefined,
): Blend {
  const keys = Object.keys(fields);
  const blends = keys.map((k) => compileNode(fields[k]));
  const Blank = plainObjectMaker();
  const blend: Blend = (from, to, fraction, out) => {
    const a = from as Record<string, unknown>;
    const b = to as Record<string, unknown>;
    if (teleportField !== undefined && a[teleportField] !== b[teleportField] && from !== to)
      return blend(fraction < 1 ? a : b, fraction < 1 ? a : b, 0, out);
    const r = (typeof out === 'object' && out !== null ? out : new Blank()) as Record<string, unknown>;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i];
      r[key] = blends[i](a[key], b[key], fraction, r[key]);
    }
    return r;
  };
  return blend;
}

/**
 * One generated blend per schema and teleport field, shared by its interpolators (a Predictor
 * compiles one each): they then share one function's type feedback and the classes of the objects
 * it makes, so its property accesses stay monomorphic. Each source is made unique, else V8's
 * cache of `new Function` would share one feedback between schemas of the same shape.
 */
const generatedBlends = new WeakMap<SchemaNode, Map<string | undefined, GeneratedBlend>>();
let generatedCount = 0;

function generatedBlend(schema: SchemaNode & { kind: 'object' }, teleportField: string | undefined) {
  let bySchema = generatedBlends.get(schema);
  if (bySchema === undefined) {
    bySchema = new Map();
    generatedBlends.set(schema, bySchema);
  }
  let blend = bySchema.get(teleportField);
  if (blend === undefined) {
    const { source, constants } = interpolateSource(schema.fields, teleportField);
    const unique = `// interpolator ${++generatedCount}\n${source}`;
    blend = new Function('k', 'h', unique)(constants, helpers) as GeneratedBlend;
    bySchema.set(teleportField, blend);
  }
  return blend;
}

/** Compiles the interpolator of an entity schema (a `t.object`): once per entity type. */
export function compileInterpolator<T>(
  schema: Schema<T>,
  options: InterpolatorOptions = {},
): Interpolator<T> {
  if (schema.kind !== 'object')
    throw new RangeError(`compileInterpolator: expected an object schema, got ${schema.kind}`);
  const { teleportField } = options;
  if (teleportField !== undefined && schema.fields[teleportField]?.kind !== 'bool')
    throw new RangeError(`compileInterpolator: teleportField ${teleportField} is not a boolean field`);
  if ((options.codegen ?? true) && codegenAvailable()) {
    const generated = generatedBlend(schema, teleportField);
    // The fraction reaches the generated code through a Float64Array: this small wrapper is
    // inlined into its callers, so a fraction they compute is never boxed to make the call.
    const fraction = new Float64Array(1);
    return {
      schema,
      compiled: true,
      interpolate(from: T, to: T, f: number, out: T): T {
        if (!(f >= 0 && f < Number.POSITIVE_INFINITY)) badFraction(f);
        fraction[0] = f;
        return generated(from, to, fraction, out) as T;
      },
    };
  }
  const blend = compileObject(schema.fields, teleportField);
  return {
    schema,
    compiled: false,
    interpolate(from: T, to: T, fraction: number, out: T): T {
      if (!(fraction >= 0 && fraction < Number.POSITIVE_INFINITY)) badFraction(fraction);
      return blend(from, to, fraction, out) as T;
    },
  };
}

/** What the generated code calls: cold paths and allocation, never a float-returning blend. */
const helpers = { target, copyBytes };
