import type { Schema, SchemaNode } from '../schema/schema.js';

/**
 * The visual error of a prediction correction, compiled once per entity schema. It lives in a flat
 * array of lanes, apart from any state: a float lane holds an offset (what was shown minus what
 * the corrected prediction shows), a quaternion holds 4 lanes with the rotation that was shown.
 * Applying it at weight w (1 right after the correction, decaying to 0) adds w × offset to floats
 * and turns rotations from the corrected one toward the old one by w on the shortest arc; ints,
 * bools, enums, strings and bytes snap (no lane). Only fixed-shape places get lanes (the top
 * object, nested objects, tuples and vectors): floats inside arrays and optionals snap too, since
 * their count can change between the two states.
 */
export interface VisualError<T> {
  readonly schema: Schema<T>;
  /** Length of the error array: the weight's lane, then one per float, four per quaternion. */
  readonly lanes: number;
  /**
   * Writes into `error` the error between `before` (what was shown) and `after` (what the
   * corrected prediction shows at the same moment); returns its size over the float lanes
   * (Euclidean, quaternions excluded).
   */
  capture(before: T, after: T, error: Float64Array): number;
  /** Adds `error` at `weight` (0..1) to `value` in place (its floats and rotations); returns it. */
  apply(value: T, error: Float64Array, weight: number): T;
  /** The distance between two states over their float lanes (Euclidean). */
  distance(a: T, b: T): number;
}

/** One node's part of the three walks, its lanes starting at a fixed offset. */
interface Lane {
  /** Writes the node's error lanes; returns the squared float distance. */
  capture(before: unknown, after: unknown, error: Float64Array): number;
  /**
   * Applies the error to `holder[key]` in place, at the weight in `error[WEIGHT]`. Writing through
   * the holder, and passing the weight in the array, keeps floats unboxed: no allocation per frame.
   */
  apply(holder: Record<string | number, unknown>, key: string | number, error: Float64Array): void;
  /** Squared float distance between two values of the node. */
  distance2(a: unknown, b: unknown): number;
}

/** The lane of the error array holding the weight during apply. */
const WEIGHT = 0;

const none: Lane = {
  capture: () => 0,
  apply: () => {},
  distance2: () => 0,
};

function floatLane(at: number, min: number, max: number): Lane {
  return {
    capture(before, after, error) {
      const d = (before as number) - (after as number);
      error[at] = d;
      return d * d;
    },
    apply(holder, key, error) {
      // The shown value stays inside a quantized float's range, like an interpolated one.
      const v = (holder[key] as number) + error[at] * error[WEIGHT];
      holder[key] = Math.min(Math.max(v, min), max);
    },
    distance2(a, b) {
      const d = (a as number) - (b as number);
      return d * d;
    },
  };
}

function quaternionLane(at: number): Lane {
  return {
    capture(before, _after, error) {
      const q = before as ArrayLike<number>;
      error[at] = q[0];
      error[at + 1] = q[1];
      error[at + 2] = q[2];
      error[at + 3] = q[3];
      return 0;
    },
    apply(holder, key, error) {
      // Normalized lerp from the corrected rotation toward the one shown, the nearer hemisphere.
      const q = holder[key] as number[];
      const weight = error[WEIGHT];
      const sign =
        q[0] * error[at] + q[1] * error[at + 1] + q[2] * error[at + 2] + q[3] * error[at + 3] < 0 ? -1 : 1;
      const x = q[0] + (sign * error[at] - q[0]) * weight;
      const y = q[1] + (sign * error[at + 1] - q[1]) * weight;
      const z = q[2] + (sign * error[at + 2] - q[2]) * weight;
      const w = q[3] + (sign * error[at + 3] - q[3]) * weight;
      const length = Math.sqrt(x * x + y * y + z * z + w * w);
      if (length > 1e-9) {
        q[0] = x / length;
        q[1] = y / length;
        q[2] = z / length;
        q[3] = w / length;
      }
    },
    distance2: () => 0,
  };
}

/** Compiles `node` with its lanes from `start`; returns the lane and the next free offset. */
function compileNode(node: SchemaNode, start: number): [Lane, number] {
  switch (node.kind) {
    case 'float32':
    case 'float64':
      return [floatLane(start, Number.NEGATIVE_INFINITY, Number.POSITIVE_INFINITY), start + 1];
    case 'float':
      return [floatLane(start, node.spec.min, node.spec.maxDecoded), start + 1];
    case 'quaternion':
    case 'smallestThree':
      return [quaternionLane(start), start + 4];
    case 'object': {
      const keys = Object.keys(node.fields);
      const parts: Lane[] = [];
      let next = start;
      for (const key of keys) {
        const [lane, after] = compileNode(node.fields[key], next);
        parts.push(lane);
        next = after;
      }
      return next === start ? [none, start] : [members(keys, parts), next];
    }
    case 'tuple': {
      const parts: Lane[] = [];
      const keys: number[] = [];
      let next = start;
      for (let i = 0; i < node.length; i++) {
        const [lane, after] = compileNode(node.item, next);
        parts.push(lane);
        keys.push(i);
        next = after;
      }
      return next === start ? [none, start] : [members(keys, parts), next];
    }
    default:
      // Discrete kinds snap; arrays and optionals change shape, so they snap as a whole.
      return [none, start];
  }
}

/** An object's fields or a tuple's items, each with its own lanes. */
function members(keys: readonly (string | number)[], parts: readonly Lane[]): Lane {
  return {
    capture(before, after, error) {
      const a = before as Record<string | number, unknown>;
      const b = after as Record<string | number, unknown>;
      let sum = 0;
      for (let i = 0; i < keys.length; i++) sum += parts[i].capture(a[keys[i]], b[keys[i]], error);
      return sum;
    },
    apply(holder, key, error) {
      const v = holder[key] as Record<string | number, unknown>;
      for (let i = 0; i < keys.length; i++) parts[i].apply(v, keys[i], error);
    },
    distance2(x, y) {
      const a = x as Record<string | number, unknown>;
      const b = y as Record<string | number, unknown>;
      let sum = 0;
      for (let i = 0; i < keys.length; i++) sum += parts[i].distance2(a[keys[i]], b[keys[i]]);
      return sum;
    },
  };
}

/** Compiles the visual error of an entity schema (a `t.object`): once per predicted type. */
export function compileVisualError<T>(schema: Schema<T>): VisualError<T> {
  if (schema.kind !== 'object')
    throw new RangeError(`compileVisualError: expected an object schema, got ${schema.kind}`);
  // Lane 0 is the weight's (see WEIGHT); the error's own lanes follow.
  const [root, end] = compileNode(schema, 1);
  const holder: { value: unknown } = { value: undefined };
  return {
    schema,
    lanes: end,
    capture: (before, after, error) => Math.sqrt(root.capture(before, after, error)),
    apply: (value, error, weight) => {
      holder.value = value;
      error[WEIGHT] = weight;
      root.apply(holder, 'value', error);
      holder.value = undefined;
      return value;
    },
    distance: (a, b) => Math.sqrt(root.distance2(a, b)),
  };
}
