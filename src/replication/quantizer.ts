import { BitReader } from '../bits/bit-reader.js';
import { BitWriter, BitWriterOverflowError } from '../bits/bit-writer.js';
import { type Codec, compile } from '../schema/codec.js';
import { SchemaValueError } from '../schema/interpret.js';
import type { SchemaNode } from '../schema/schema.js';
import { ReadStream } from '../serialize/read-stream.js';
import { WriteStream } from '../serialize/write-stream.js';
import type { LaneState } from './lane-state.js';
import type { BlobLane, ScalarLane } from './plan.js';

/**
 * Value ↔ lanes through the schema codec itself: the codec of the fixed part (the schema less its
 * blob subtrees) writes the scalar lanes' bits in lane order, and the lanes are cut from them; each
 * blob is its subtree codec's encoding. So a lane holds exactly what the codec sends, and every
 * write rule (ranges, NaN, unit quaternions, enum membership) and its error path are the codec's.
 * Dequantizing writes the lanes back into bits and lets the same codecs read them.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

export class Quantizer {
  private readonly fixed: Codec<unknown>;
  private readonly writer: BitWriter;
  private readonly ws: WriteStream;
  private readonly reader: BitReader;
  private readonly rs = new ReadStream(16);
  /** Encodings made during one quantize, committed only once every field has been accepted. */
  private readonly pending: Uint8Array[];

  constructor(
    fixed: SchemaNode,
    private readonly lanes: readonly ScalarLane[],
    private readonly blobs: readonly BlobLane[],
  ) {
    this.fixed = compile(fixed);
    const bytes = Math.ceil(this.fixed.maxBits / 8) + 8;
    this.writer = new BitWriter(bytes);
    this.ws = new WriteStream(this.writer);
    this.reader = new BitReader(bytes);
    this.pending = blobs.map(() => new Uint8Array(0));
  }

  /**
   * Writes `value` into `state`. Throws a SchemaValueError naming the path of a value the schema
   * codec would refuse, and then leaves `state` as it was. A blob is replaced by a new array when
   * its bytes change and kept otherwise: blobs are immutable, so saved states may share them.
   */
  quantize(value: unknown, state: LaneState): void {
    this.writer.reset();
    this.fixed.write(this.ws, value);
    for (let b = 0; b < this.blobs.length; b++) {
      const blob = this.blobs[b];
      // The fixed write has checked that every object on the way is an object.
      let field: unknown = value;
      for (const key of blob.keys)
        field = Object.hasOwn(field as object, key) ? (field as never)[key] : undefined;
      try {
        // The codec's buffer is its own: this view stays valid until this blob's next encode.
        this.pending[b] = blob.codec.encode(field);
      } catch (error) {
        if (error instanceof BitWriterOverflowError) throw error;
        if (error instanceof SchemaValueError)
          throw new SchemaValueError(blob.path + error.path, error.detail);
        throw new SchemaValueError(blob.path, error instanceof Error ? error.message : String(error));
      }
    }
    this.reader.reset(this.writer.finish());
    const lanes = state.lanes;
    for (let i = 0; i < this.lanes.length; i++) lanes[i] = this.reader.readBits(this.lanes[i].bits);
    const blobs = state.blobs;
    for (let b = 0; b < this.pending.length; b++) {
      const encoded = this.pending[b];
      if (!sameBytes(encoded, blobs[b])) blobs[b] = encoded.slice();
    }
  }

  /**
   * The value `state` holds: fills `target` in place where its shape allows (objects, tuples,
   * typed-array vectors), else builds it. Throws if a lane holds more than its maximum or a blob
   * does not decode: a state is trusted, so that is a bug in whoever filled it.
   */
  dequantize(state: LaneState, target?: unknown): unknown {
    this.writer.reset();
    for (let i = 0; i < this.lanes.length; i++) {
      const lane = this.lanes[i];
      const v = state.lanes[i];
      if (!(v <= lane.max))
        throw new RangeError(`dequantize: lane ${lane.path} holds ${v} > max ${lane.max}`);
      this.writer.writeBits(v, lane.bits);
    }
    this.rs.reset(this.writer.finish());
    const value = this.fixed.read(this.rs, target);
    if (value === null) throw new RangeError(`dequantize: lanes do not read back: ${this.rs.error}`);
    for (let b = 0; b < this.blobs.length; b++) {
      const blob = this.blobs[b];
      // The fixed read has built (or kept) every object on the way.
      let parent = value as Record<string, unknown>;
      const last = blob.keys.length - 1;
      for (let k = 0; k < last; k++) parent = parent[blob.keys[k]] as Record<string, unknown>;
      const key = blob.keys[last];
      const previous = parent[key];
      const result = blob.codec.decode(state.blobs[b], isObject(previous) ? previous : undefined);
      if (!result.ok) throw new RangeError(`dequantize: blob ${blob.path} does not decode: ${result.error}`);
      parent[key] = result.value;
    }
    return value;
  }
}

export function sameBytes(a: Uint8Array, b: Uint8Array | undefined): boolean {
  if (a === b) return true;
  if (b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
