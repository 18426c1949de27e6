import { BitReader } from '../bits/bit-reader.js';
import { BitWriter, BitWriterOverflowError } from '../bits/bit-writer.js';
import { SchemaValueError, serializeNode } from '../schema/interpret.js';
import { ReadStream } from '../serialize/read-stream.js';
import { WriteStream } from '../serialize/write-stream.js';
import type { LaneState } from './lane-state.js';
import type { BlobLane, Plan, ScalarLane } from './plan.js';

/**
 * Value ↔ lanes. Every leaf is written by the schema interpreter's own code (`serializeNode`)
 * into a scratch stream and the lanes are cut from those bits, so a lane holds exactly what the
 * schema codec sends and every write rule (ranges, NaN, unit quaternions, enum membership) is the
 * codec's, not a copy of it. Dequantizing runs the same leaves in reading mode over the lane bits.
 */

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;
const isVector = (v: unknown): v is number[] => Array.isArray(v) || ArrayBuffer.isView(v);

/** A write-side error with the path of the leaf prefixed, like the codec reports it. */
function atPath(path: string, error: unknown): never {
  if (error instanceof BitWriterOverflowError) throw error;
  if (error instanceof SchemaValueError) throw new SchemaValueError(path + error.path, error.detail);
  throw new SchemaValueError(path, error instanceof Error ? error.message : String(error));
}

export class Quantizer {
  private readonly writer: BitWriter;
  private readonly ws: WriteStream;
  private readonly reader: BitReader;
  private readonly rs = new ReadStream(16);
  /** Encodings made during one quantize, committed only once every field has been accepted. */
  private readonly pending: Uint8Array[];

  constructor(
    private readonly plan: Plan,
    private readonly lanes: readonly ScalarLane[],
    private readonly blobs: readonly BlobLane[],
  ) {
    let bits = 0;
    for (const lane of lanes) bits += lane.bits;
    const bytes = Math.ceil(bits / 8) + 8;
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
    this.write(this.plan, value);
    const bytes = this.writer.finish();
    this.reader.reset(bytes);
    const lanes = state.lanes;
    for (let i = 0; i < this.lanes.length; i++) lanes[i] = this.reader.readBits(this.lanes[i].bits);
    const blobs = state.blobs;
    for (let b = 0; b < this.pending.length; b++) {
      const encoded = this.pending[b];
      if (!sameBytes(encoded, blobs[b])) blobs[b] = encoded.slice();
    }
  }

  private write(plan: Plan, value: unknown): void {
    switch (plan.kind) {
      case 'leaf':
        try {
          serializeNode(this.ws, plan.node, value);
        } catch (error) {
          atPath(plan.path, error);
        }
        return;
      case 'object': {
        if (!isObject(value)) throw new SchemaValueError(plan.path, 'expected an object');
        for (let i = 0; i < plan.keys.length; i++) {
          // Own properties only, as the codec reads them: an inherited field is a missing one.
          const key = plan.keys[i];
          this.write(plan.fields[i], Object.hasOwn(value, key) ? value[key] : undefined);
        }
        return;
      }
      case 'tuple': {
        const length = plan.items.length;
        if (!(isVector(value) && value.length === length)) {
          throw new SchemaValueError(plan.path, `expected an array of exactly ${length} items`);
        }
        for (let i = 0; i < length; i++) this.write(plan.items[i], value[i]);
        return;
      }
      case 'blob': {
        // The codec's buffer is its own, so this view stays valid until this blob lane's next encode.
        try {
          this.pending[plan.blob] = this.blobs[plan.blob].codec.encode(value);
        } catch (error) {
          atPath(plan.path, error);
        }
        return;
      }
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
    const value = this.read(this.plan, state, target);
    if (!this.rs.ok) throw new RangeError(`dequantize: lanes do not read back: ${this.rs.error}`);
    return value;
  }

  private read(plan: Plan, state: LaneState, target: unknown): unknown {
    switch (plan.kind) {
      case 'leaf':
        return serializeNode(this.rs, plan.node, target);
      case 'object': {
        const o = isObject(target) ? target : {};
        for (let i = 0; i < plan.keys.length; i++) {
          const key = plan.keys[i];
          o[key] = this.read(plan.fields[i], state, o[key]);
        }
        return o;
      }
      case 'tuple': {
        const length = plan.items.length;
        const a: unknown[] = isVector(target) && target.length === length ? target : [];
        for (let i = 0; i < length; i++) a[i] = this.read(plan.items[i], state, a[i]);
        return a;
      }
      case 'blob': {
        const bytes = state.blobs[plan.blob];
        const result = this.blobs[plan.blob].codec.decode(bytes, target);
        if (!result.ok)
          throw new RangeError(`dequantize: blob ${plan.path} does not decode: ${result.error}`);
        return result.value;
      }
    }
  }
}

export function sameBytes(a: Uint8Array, b: Uint8Array | undefined): boolean {
  if (a === b) return true;
  if (b === undefined || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
