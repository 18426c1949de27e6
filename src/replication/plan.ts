import { bitsRequired, bitsRequired64 } from '../bits/bits-required.js';
import { type Codec, compile } from '../schema/codec.js';
import type { SchemaNode } from '../schema/schema.js';
import { fixedBits, maxBits } from '../schema/size.js';

/**
 * Flattening an entity schema into lanes. A fixed-width leaf becomes one or more *scalar lanes*
 * holding exactly the bits the schema codec writes for it (at most 32 per lane); a variable-size
 * subtree (string, bytes, array, optional, or a tuple / object holding one) becomes one *blob
 * lane* holding its encoding by a codec compiled for that subtree.
 */

/** The most scalar lanes an entity type may have: the changed-lane set is sized by it. */
export const MAX_SCALAR_LANES = 256;
/** The most blob lanes an entity type may have: each costs a changed bit in every delta. */
export const MAX_BLOB_LANES = 32;
/**
 * Lanes narrower than this are always sent absolute: a delta's prefix and sign would cost as
 * much as the value (the smallest delta class takes 5 bits, see entity-delta.ts).
 */
export const DELTA_MIN_BITS = 8;

/** A scalar lane: one unsigned integer of at most 32 bits. */
export interface ScalarLane {
  /** Index in the state's `lanes` array. */
  readonly index: number;
  /** Where the lane lives in a value, for messages: `.position[1]`. */
  readonly path: string;
  /** Width on the wire, 1..32. */
  readonly bits: number;
  /** The largest value the lane may hold; a read above it is refused. */
  readonly max: number;
  /** Whether a change may be sent as a small signed difference from the baseline. */
  readonly delta: boolean;
}

/** A blob lane: the encoded bytes of a variable-size subtree. */
export interface BlobLane {
  /** Index in the state's `blobs` array. */
  readonly index: number;
  readonly path: string;
  /** The longest encoding the subtree's codec can produce, in bytes. */
  readonly maxBytes: number;
  /** The subtree's codec: blobs are its `encode` output, and a read must pass its `decode`. */
  readonly codec: Codec<unknown>;
}

/** How quantizing walks a value: a tree mirroring the schema down to leaves and blobs. */
export type Plan =
  | { readonly kind: 'object'; readonly path: string; readonly keys: string[]; readonly fields: Plan[] }
  | { readonly kind: 'tuple'; readonly path: string; readonly items: Plan[] }
  /** A fixed-width leaf in `lanes` consecutive scalar lanes from `lane` (0 lanes: a constant). */
  | {
      readonly kind: 'leaf';
      readonly path: string;
      readonly node: SchemaNode;
      readonly lane: number;
      readonly lanes: number;
    }
  | { readonly kind: 'blob'; readonly path: string; readonly blob: number };

export interface Flattened {
  readonly plan: Plan;
  readonly lanes: ScalarLane[];
  readonly blobs: BlobLane[];
}

/** True when a subtree holds anything of variable size. */
const variable = (n: SchemaNode): boolean => fixedBits(n) < 0;

class Flattener {
  readonly lanes: ScalarLane[] = [];
  readonly blobs: BlobLane[] = [];

  private addLane(path: string, bits: number, max: number, delta: boolean): void {
    if (this.lanes.length === MAX_SCALAR_LANES) {
      throw new RangeError(
        `compileLayout: more than ${MAX_SCALAR_LANES} scalar lanes (at ${path}); send long lists as t.array, which is one blob lane`,
      );
    }
    this.lanes.push(Object.freeze({ index: this.lanes.length, path, bits, max, delta }));
  }

  /** Lanes for a leaf of `bits` bits (0..64): the bits as they are, cut into words of 32. */
  private leaf(node: SchemaNode, path: string, bits: number, max: number, delta: boolean): Plan {
    const lane = this.lanes.length;
    if (bits <= 32) {
      if (bits > 0) this.addLane(path, bits, max, delta && bits >= DELTA_MIN_BITS);
    } else {
      // Wider leaves go low word first, as the stream writes them; halves are not numbers to diff.
      for (let at = 0, part = 0; at < bits; at += 32, part++) {
        const width = Math.min(32, bits - at);
        this.addLane(`${path}#${part}`, width, 2 ** width - 1, false);
      }
    }
    return { kind: 'leaf', path, node, lane, lanes: this.lanes.length - lane };
  }

  private blob(node: SchemaNode, path: string): Plan {
    if (this.blobs.length === MAX_BLOB_LANES) {
      throw new RangeError(`compileLayout: more than ${MAX_BLOB_LANES} variable-size fields (at ${path})`);
    }
    const index = this.blobs.length;
    // A codec writes ceil(bits / 8) bytes; maxBits counts each align at its worst (7 bits), so
    // this bounds every encoding.
    const maxBytes = Math.ceil(maxBits(node) / 8);
    this.blobs.push(Object.freeze({ index, path, maxBytes, codec: compile(node) as Codec<unknown> }));
    return { kind: 'blob', path, blob: index };
  }

  visit(n: SchemaNode, path: string): Plan {
    if (variable(n)) {
      // An object or tuple only partly variable keeps its fixed parts as lanes.
      if (n.kind === 'object') return this.object(n.fields, path);
      return this.blob(n, path);
    }
    switch (n.kind) {
      case 'bool':
        return this.leaf(n, path, 1, 1, false);
      case 'int': {
        const bits = bitsRequired(n.min, n.max);
        return this.leaf(n, path, bits, n.max - n.min, true);
      }
      case 'int64': {
        const bits = bitsRequired64(n.min, n.max);
        // A range of at most 32 bits is one numeric lane like an int; wider ones are split words.
        return this.leaf(n, path, bits, bits <= 32 ? Number(n.max - n.min) : 0, bits <= 32);
      }
      case 'float':
        return this.leaf(n, path, n.spec.bits, n.spec.maxInteger, true);
      case 'enum':
        return this.leaf(n, path, bitsRequired(0, n.values.length - 1), n.values.length - 1, false);
      case 'float32':
        return this.leaf(n, path, 32, 0xffffffff, false);
      case 'float64':
        return this.leaf(n, path, 64, 0, false);
      case 'smallestThree': {
        const bits = 2 + 3 * n.bits;
        return this.leaf(n, path, bits, bits <= 32 ? 2 ** bits - 1 : 0, false);
      }
      case 'quaternion':
        // Four float32 (x, y, z, w): one lane per component, so one turning axis changes one lane.
        return {
          kind: 'tuple',
          path,
          items: [0, 1, 2, 3].map((i) =>
            this.leaf({ kind: 'float32' }, `${path}[${i}]`, 32, 0xffffffff, false),
          ),
        };
      case 'tuple': {
        const items: Plan[] = [];
        for (let i = 0; i < n.length; i++) items.push(this.visit(n.item, `${path}[${i}]`));
        return { kind: 'tuple', path, items };
      }
      case 'object':
        return this.object(n.fields, path);
      default:
        // string, bytes, array, optional are always variable and handled above.
        throw new Error(`compileLayout: unexpected fixed-size kind ${n.kind}`);
    }
  }

  private object(fields: Readonly<Record<string, SchemaNode>>, path: string): Plan {
    const keys = Object.keys(fields);
    return {
      kind: 'object',
      path,
      keys,
      fields: keys.map((key) => this.visit(fields[key], `${path}.${key}`)),
    };
  }
}

/** Flattens an object schema; anything else is refused (an entity's state is a set of named fields). */
export function flatten(schema: SchemaNode): Flattened {
  if (schema === null || typeof schema !== 'object' || schema.kind !== 'object') {
    throw new TypeError(
      `compileLayout needs a t.object schema (an entity is a set of named fields), got ${schema === null || typeof schema !== 'object' ? String(schema) : schema.kind}`,
    );
  }
  const flattener = new Flattener();
  const plan = flattener.visit(schema, '');
  return { plan, lanes: flattener.lanes, blobs: flattener.blobs };
}
