import { BitReader } from '../bits/bit-reader.js';
import { bitsRequired, bitsRequired64 } from '../bits/bits-required.js';
import { type CompressedFloat, dequantize } from './compressed-float.js';
import { bitsToFloat32, bitsToFloat64 } from './float-bits.js';
import { serializeIntRelative, serializeSequenceRelative } from './relative.js';
import { SERIALIZE_CHECK_VALUE, type Stream } from './stream.js';
import { utf8Read } from './utf8.js';

const EMPTY = new Uint8Array(0);

/**
 * Reads hostile input. Nothing here throws on bad data: the first failure is recorded with its
 * reason and bit position, the stream stops, and every later read returns a neutral in-range value
 * straight away. Allocation is bounded by what the caller declared (a string's maxBytes, a byte
 * count) and by the input's own size, which is checked before anything is allocated.
 */
export class ReadStream implements Stream {
  readonly isWriting = false;
  readonly isReading = true;
  readonly isMeasuring = false;
  readonly reader: BitReader;
  private failure: string | null = null;
  private failureBit = 0;

  constructor(initialCapacityBytes = 1500) {
    this.reader = new BitReader(initialCapacityBytes);
  }

  /**
   * Starts reading `data`, or `length` bytes of it from `offset` (copied into the stream's own
   * buffer, so no view of a packet needs making); anything but bytes, or a range outside them,
   * fails at once.
   */
  reset(data: Uint8Array, offset = 0, length = (data?.length ?? 0) - offset): void {
    const valid =
      data instanceof Uint8Array &&
      Number.isInteger(offset) &&
      Number.isInteger(length) &&
      offset >= 0 &&
      length >= 0 &&
      offset + length <= data.length;
    if (valid) this.reader.reset(data, offset, length);
    else this.reader.reset(EMPTY);
    this.failure = null;
    this.failureBit = 0;
    if (!valid)
      this.fail(data instanceof Uint8Array ? 'range outside the input' : 'input is not a Uint8Array');
  }

  get ok(): boolean {
    return this.failure === null;
  }

  get bitsProcessed(): number {
    return this.reader.bitsConsumed;
  }

  get bitsRemaining(): number {
    return this.reader.bitsRemaining;
  }

  /** Why the read failed, or null. */
  get reason(): string | null {
    return this.failure;
  }

  /** The bit at which the read failed. */
  get errorBit(): number {
    return this.failureBit;
  }

  /** `reason at bit N`, or null while the read is good. */
  get error(): string | null {
    return this.failure === null ? null : `${this.failure} at bit ${this.failureBit}`;
  }

  fail(reason: string): void {
    if (this.failure === null) {
      this.failure = reason;
      this.failureBit = this.reader.bitsConsumed;
    }
    this.reader.stop();
  }

  /** Fails unless what is left is the writer's zero padding of the last byte. */
  end(): boolean {
    const left = this.reader.bitsRemaining;
    if (left >= 8) this.fail('trailing data after the end');
    else if (left > 0 && this.reader.readBits(left) !== 0) this.fail('non-zero padding after the end');
    return this.failure === null;
  }

  private take(bits: number): number {
    if (bits > this.reader.bitsRemaining) {
      this.fail('read past the end');
      return 0;
    }
    return this.reader.readBits(bits);
  }

  bits(_value: number, bits: number): number {
    // The width is the caller's, not the input's: a bad one is misuse and fails loudly.
    if (!(bits >= 1 && bits <= 32 && (bits | 0) === bits))
      throw new RangeError(`bits: width must be 1..32, got ${bits}`);
    return this.take(bits);
  }

  bool(_value: boolean): boolean {
    return this.take(1) === 1;
  }

  int(_value: number, min: number, max: number): number {
    const range = max - min;
    if (range === 0) return min;
    const offset = this.take(bitsRequired(min, max));
    if (offset > range) {
      this.fail(`int out of range [${min}, ${max}]`);
      return min;
    }
    return min + offset;
  }

  uint8(_value: number): number {
    return this.take(8);
  }

  uint16(_value: number): number {
    return this.take(16);
  }

  uint32(_value: number): number {
    return this.take(32);
  }

  bits64(_value: bigint, bits: number): bigint {
    if (bits <= 32) return BigInt(this.take(bits));
    const low = this.take(32);
    const high = this.take(bits - 32);
    return (BigInt(high) << 32n) | BigInt(low);
  }

  int64(_value: bigint, min: bigint, max: bigint): bigint {
    const bits = bitsRequired64(min, max);
    if (bits === 0) return min;
    const offset = this.bits64(0n, bits);
    if (offset > max - min) {
      this.fail(`int64 out of range [${min}, ${max}]`);
      return min;
    }
    return min + offset;
  }

  uint64(_value: bigint): bigint {
    return this.bits64(0n, 64);
  }

  float32(_value: number): number {
    return bitsToFloat32(this.take(32));
  }

  float64(_value: number): number {
    const low = this.take(32);
    return bitsToFloat64(low, this.take(32));
  }

  compressedFloat(_value: number, spec: CompressedFloat): number {
    const integer = this.take(spec.bits);
    if (integer > spec.maxInteger) {
      this.fail('compressed float out of range');
      return spec.min;
    }
    return dequantize(integer, spec);
  }

  align(): void {
    if (!this.reader.readAlign()) this.fail('non-zero align padding');
  }

  bytes(_value: Uint8Array, length: number): Uint8Array {
    this.align();
    if (length * 8 > this.reader.bitsRemaining) {
      this.fail('byte block past the end');
      return EMPTY;
    }
    const out = new Uint8Array(length);
    this.reader.readBytesInto(out, 0, length);
    return out;
  }

  string(_value: string, maxBytes: number): string {
    const length = this.int(0, 0, maxBytes);
    this.align();
    if (length * 8 > this.reader.bitsRemaining) {
      this.fail('string past the end');
      return '';
    }
    if (length === 0 || this.failure !== null) return '';
    const start = this.reader.bitsConsumed >>> 3;
    const input = this.reader.input;
    const text = utf8Read(input, start, start + length);
    if (text === null) {
      const nul = input.indexOf(0, start);
      this.fail(nul >= 0 && nul < start + length ? 'NUL byte in string' : 'invalid UTF-8 in string');
      return '';
    }
    this.reader.skipBytes(length);
    return text;
  }

  intRelative(previous: number, current: number): number {
    return serializeIntRelative(this, previous, current);
  }

  sequenceRelative(sequence1: number, sequence2: number): number {
    return serializeSequenceRelative(this, sequence1, sequence2);
  }

  check(): void {
    this.align();
    if (this.take(32) !== SERIALIZE_CHECK_VALUE && this.failure === null)
      this.fail('serialization check failed');
  }
}
