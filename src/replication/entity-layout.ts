import type { Schema } from '../schema/schema.js';
import { copyState, type LaneState, zeroState } from './lane-state.js';
import { type BlobLane, flatten, type ScalarLane, type WordRange } from './plan.js';
import { Quantizer } from './quantizer.js';

/**
 * An entity type's lanes: its schema flattened so that a state is a Uint32Array (one entry per
 * fixed-width leaf, or per 32-bit word of a wider one) plus one encoded byte array per
 * variable-size field. Compile one per entity type and share it; its methods reuse scratch
 * buffers, so one layout is used from one thread at a time.
 */
export class EntityLayout<T> {
  /** Scalar lanes in schema order. */
  readonly lanes: readonly ScalarLane[];
  /** Blob lanes in schema order. */
  readonly blobs: readonly BlobLane[];
  /** Split int64 leaves whose two lanes must be checked together (used by the delta reader). */
  readonly wordRanges: readonly WordRange[];
  /** The all-zero state a delta "against nothing" is taken against (do not modify). */
  readonly zero: LaneState;
  private readonly quantizer: Quantizer;

  constructor(readonly schema: Schema<T>) {
    const { fixed, lanes, blobs, wordRanges } = flatten(schema);
    this.wordRanges = Object.freeze(wordRanges);
    this.lanes = Object.freeze(lanes);
    this.blobs = Object.freeze(blobs);
    this.zero = zeroState(lanes.length, blobs.length);
    Object.freeze(this.zero.blobs);
    this.quantizer = new Quantizer(fixed, lanes, blobs);
  }

  /** A fresh state of this layout (all lanes zero, blobs empty). */
  createState(): LaneState {
    return zeroState(this.lanes.length, this.blobs.length);
  }

  /** Copies `from` into `to`: lanes by value, blobs by reference (they are immutable). */
  copyState(from: LaneState, to: LaneState): void {
    this.checkState(from, 'copyState');
    this.checkState(to, 'copyState');
    copyState(from, to);
  }

  /**
   * Quantizes `value` into `state`, exactly as the schema codec would write it. A value the codec
   * refuses throws a SchemaValueError naming its path (`.position[1]: ...`) and leaves `state` as
   * it was.
   */
  quantize(value: T, state: LaneState): void {
    this.checkState(state, 'quantize');
    this.quantizer.quantize(value, state);
  }

  /**
   * The value `state` holds, equal to what the codec's decode of its encoding gives. Fills
   * `target` in place where its shape allows (no allocation for fixed-shape objects), else builds
   * a new value.
   */
  dequantize(state: LaneState, target?: T): T {
    this.checkState(state, 'dequantize');
    return this.quantizer.dequantize(state, target) as T;
  }

  /** Throws unless `state` has this layout's shape: a mismatch is the caller's bug. */
  checkState(state: LaneState, what: string): void {
    if (
      state === null ||
      typeof state !== 'object' ||
      !(state.lanes instanceof Uint32Array) ||
      state.lanes.length !== this.lanes.length ||
      !Array.isArray(state.blobs) ||
      state.blobs.length !== this.blobs.length
    ) {
      throw new TypeError(
        `${what}: expected a state of ${this.lanes.length} lanes and ${this.blobs.length} blobs (layout.createState())`,
      );
    }
  }
}

/**
 * Compiles an entity schema (a `t.object`) into its lane layout. Refuses other schemas, and
 * entity types of more than MAX_SCALAR_LANES scalar lanes or MAX_BLOB_LANES blob lanes.
 */
export function compileLayout<T>(schema: Schema<T>): EntityLayout<T> {
  return new EntityLayout(schema);
}
