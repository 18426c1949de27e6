import { bitsRequired, bitsRequired64 } from '../bits/bits-required.js';
import { type Codec, compile } from '../schema/codec.js';
import { type SchemaNode, t } from '../schema/schema.js';
import { fixedBits, maxBits } from '../schema/size.js';

/**
 * Flattening an entity schema into lanes. A fixed-width leaf becomes one or more *scalar lanes*
 * holding exactly the bits the schema codec writes for it (at most 32 per lane); a variable-size
 * subtree (string, bytes, array, optional, or a tuple holding one) becomes one *blob lane*
 * holding its encoding by a codec compiled for that subtree. An object mixing both is walked
 * into, so blobs only ever sit at a chain of object fields.
 */

/** The most scalar lanes an entity type may have: the changed-lane set is sized by it. */
export const MAX_SCALAR_LANES = 256;
/** The most blob lanes an entity type may have: each costs a changed bit in every delta. */
export const MAX_BLOB_LANES = 32;
/**
 * Lanes narrower than this are always sent absolute: a delta's prefix and sign would cost as
 * much as the value (the smallest delta class takes 4 bits, see entity-delta.ts).
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
  /**
   * For a smallest-three lane (2 bits of largest index, then three components): the bits per
   * component, so a change keeping the largest index may be sent per component (entity-delta.ts);
   * 0 for every other lane.
   */
  readonly rotation: number;
}

/** A blob lane: the encoded bytes of a variable-size subtree. */
export interface BlobLane {
  /** Index in the state's `blobs` array. */
  readonly index: number;
  readonly path: string;
  /** The field names leading to the subtree from the entity (blobs only ever sit in objects). */
  readonly keys: readonly string[];
  /** The longest encoding the subtree's codec can produce, in bytes. */
  readonly maxBytes: number;
  /** The subtree's codec: blobs are its `encode` output, and a read must pass its `decode`. */
  readonly codec: Codec<unknown>;
}

/**
 * An int64 leaf split into two lanes whose range is not a whole number of bits: each word may be
 * within its lane's max while the pair is past the range, so the pair is checked as one.
 */
export interface WordRange {
  /** The low word's lane; the high word's is the next one. */
  readonly low: number;
  readonly path: string;
  readonly maxLow: number;
  readonly maxHigh: number;
}

export interface Flattened {
  readonly lanes: ScalarLane[];
  readonly blobs: BlobLane[];
  readonly wordRanges: WordRange[];
  /**
   * The schema with every blob subtree left out: its codec writes exactly the scalar lanes' bits,
   * in lane order, so quantizing is one run of generated code with the codec's own checks.
   */
  readonly fixed: SchemaNode;
}

/** True when a subtree holds anything of variable size. */
const variable = (n: SchemaNode): boolean => fixedBits(n) < 0;

/**
 * Walks the schema in codec order, adding lanes, and returns the node's part in the fixed
 * schema: the node itself when it is fixed-width, an object of its fixed fields, or null for a
 * blob.
 */
class Flattener {
  readonly lanes: ScalarLane[] = [];
  readonly blobs: BlobLane[] = [];
  readonly wordRanges: WordRange[] = [];

  private addLane(path: string, bits: number, max: number, delta: boolean, rotation = 0): void {
    if (this.lanes.length === MAX_SCALAR_LANES) {
      throw new RangeError(
        `compileLayout: more than ${MAX_SCALAR_LANES} scalar lanes (at ${path}); send long lists as t.array, which is one blob lane`,
      );
    }
    this.lanes.push(Object.freeze({ index: this.lanes.length, path, bits, max, delta, rotation }));
  }

  /** Lanes for a leaf of `bits` bits (0..64): the bits as they are, cut into words of 32. */
  private leaf(path: string, bits: number, max: number, delta: boolean): void {
    if (bits <= 32) {
      if (bits > 0) this.addLane(path, bits, max, delta && bits >= DELTA_MIN_BITS);
      return;
    }
    // Wider leaves go low word first, as the stream writes them; halves are not numbers to diff.
    for (let at = 0, part = 0; at < bits; at += 32, part++) {
      const width = Math.min(32, bits - at);
      this.addLane(`${path}#${part}`, width, 2 ** width - 1, false);
    }
  }

  private blob(node: SchemaNode, path: string, keys: readonly string[]): null {
    if (this.blobs.length === MAX_BLOB_LANES) {
      throw new RangeError(`compileLayout: more than ${MAX_BLOB_LANES} variable-size fields (at ${path})`);
    }
    // A codec writes ceil(bits / 8) bytes; maxBits counts each align at its worst (7 bits), so
    // this bounds every encoding.
    const maxBytes = Math.ceil(maxBits(node) / 8);
    // The length goes on the wire as an int, whose range must fit 32 bits.
    if (!(maxBytes <= 0xffffffff)) {
      throw new RangeError(
        `compileLayout: ${path} can take more than 2^32 - 1 bytes; declare smaller maxima`,
      );
    }
    const codec = compile(node) as Codec<unknown>;
    this.blobs.push(Object.freeze({ index: this.blobs.length, path, keys, maxBytes, codec }));
    return null;
  }

  visit(n: SchemaNode, path: string, keys: readonly string[]): SchemaNode | null {
    if (variable(n)) {
      // An object only partly variable keeps its fixed fields as lanes.
      return n.kind === 'object' ? this.object(n.fields, path, keys) : this.blob(n, path, keys);
    }
    switch (n.kind) {
      case 'bool':
        this.leaf(path, 1, 1, false);
        break;
      case 'int':
        this.leaf(path, bitsRequired(n.min, n.max), n.max - n.min, true);
        break;
      case 'entity':
        // An id is a name, not a quantity: a difference of two ids means nothing, so no delta form.
        this.leaf(path, bitsRequired(-1, n.ids - 1), n.ids, false);
        break;
      case 'int64': {
        // A range of at most 32 bits is one numeric lane like an int; wider ones are split words.
        const bits = bitsRequired64(n.min, n.max);
        const range = n.max - n.min;
        if (bits > 32 && range !== (1n << BigInt(bits)) - 1n) {
          const maxLow = Number(range & 0xffffffffn);
          this.wordRanges.push(
            Object.freeze({ low: this.lanes.length, path, maxLow, maxHigh: Number(range >> 32n) }),
          );
        }
        this.leaf(path, bits, bits <= 32 ? Number(range) : 0, bits <= 32);
        break;
      }
      case 'float':
        this.leaf(path, n.spec.bits, n.spec.maxInteger, true);
        break;
      case 'enum':
        this.leaf(path, bitsRequired(0, n.values.length - 1), n.values.length - 1, false);
        break;
      case 'float32':
        this.leaf(path, 32, 0xffffffff, false);
        break;
      case 'float64':
        this.leaf(path, 64, 0, false);
        break;
      case 'smallestThree': {
        const bits = 2 + 3 * n.bits;
        // Up to 10 bits a component it is one lane whose components may go as deltas.
        if (bits <= 32) this.addLane(path, bits, 2 ** bits - 1, false, n.bits);
        else this.leaf(path, bits, 0, false);
        break;
      }
      case 'quaternion':
        // Four float32 (x, y, z, w): one lane per component, so one turning axis changes one lane.
        for (let i = 0; i < 4; i++) this.leaf(`${path}[${i}]`, 32, 0xffffffff, false);
        break;
      case 'tuple':
        for (let i = 0; i < n.length; i++) this.visit(n.item, `${path}[${i}]`, keys);
        break;
      case 'object':
        for (const [key, field] of Object.entries(n.fields))
          this.visit(field, `${path}.${key}`, [...keys, key]);
        break;
      default:
        // string, bytes, array, optional are always variable and handled above.
        throw new Error(`compileLayout: unexpected fixed-size kind ${n.kind}`);
    }
    return n;
  }

  private object(
    fields: Readonly<Record<string, SchemaNode>>,
    path: string,
    keys: readonly string[],
  ): SchemaNode {
    const fixed: Record<string, SchemaNode> = {};
    for (const [key, field] of Object.entries(fields)) {
      const part = this.visit(field, `${path}.${key}`, [...keys, key]);
      if (part !== null) fixed[key] = part;
    }
    return t.object(fixed);
  }
}

/** Whether the two words of a split int64 are past its range. */
export function pastRange(range: WordRange, lanes: Uint32Array): boolean {
  const high = lanes[range.low + 1];
  return high > range.maxHigh || (high === range.maxHigh && lanes[range.low] > range.maxLow);
}

/** Flattens an object schema; anything else is refused (an entity's state is a set of named fields). */
export function flatten(schema: SchemaNode): Flattened {
  if (schema === null || typeof schema !== 'object' || schema.kind !== 'object') {
    throw new TypeError(
      `compileLayout needs a t.object schema (an entity is a set of named fields), got ${schema === null || typeof schema !== 'object' ? String(schema) : schema.kind}`,
    );
  }
  const flattener = new Flattener();
  const fixed = flattener.visit(schema, '', []) as SchemaNode;
  return { lanes: flattener.lanes, blobs: flattener.blobs, wordRanges: flattener.wordRanges, fixed };
}
