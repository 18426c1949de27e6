import { BitWriter } from '../bits/bit-writer.js';
import { bitsRequired64 } from '../bits/bits-required.js';
import { type CompressedFloat, quantize } from './compressed-float.js';
import { float32Problem, float32ToBits, float64HighBits, float64LowBits } from './float-bits.js';
import { serializeIntRelative, serializeSequenceRelative } from './relative.js';
import { SERIALIZE_CHECK_VALUE, type Stream } from './stream.js';
import { checkedUtf8Length, utf8Encode } from './utf8.js';

/**
 * Writes through a {@link BitWriter}. Every value is checked against its declared range and a bad
 * one throws at the call: sending it would be a bug in the caller, not a network condition.
 */
export class WriteStream implements Stream {
  readonly isWriting = true;
  readonly isReading = false;
  readonly isMeasuring = false;
  readonly ok = true;
  readonly writer: BitWriter;
  private textScratch = new Uint8Array(64);

  /** @param capacity the largest output in bytes, or a writer to share */
  constructor(capacity: number | BitWriter) {
    this.writer = typeof capacity === 'number' ? new BitWriter(capacity) : capacity;
  }

  get bitsProcessed(): number {
    return this.writer.bitsWritten;
  }

  reset(): void {
    this.writer.reset();
  }

  /** The bytes written (a view, valid until the next reset). */
  finish(): Uint8Array {
    return this.writer.finish();
  }

  bits(value: number, bits: number): number {
    if (
      !(bits >= 1 && bits <= 32 && (bits | 0) === bits) ||
      value >>> 0 !== value ||
      (bits < 32 && value >>> bits !== 0)
    ) {
      throw new RangeError(`bits: ${value} does not fit in ${bits} bits (bits must be 1..32)`);
    }
    this.writer.writeBits(value, bits);
    return value;
  }

  bool(value: boolean): boolean {
    this.writer.writeBits(value ? 1 : 0, 1);
    return value;
  }

  int(value: number, min: number, max: number): number {
    const range = max - min;
    const offset = value - min;
    if (
      !(
        offset >= 0 &&
        offset <= range &&
        range <= 0xffffffff &&
        Number.isInteger(value) &&
        Number.isInteger(min)
      )
    ) {
      throw new RangeError(
        `int: ${value} is outside [${min}, ${max}] or not an integer (max - min must be < 2^32)`,
      );
    }
    if (range !== 0) this.writer.writeBits(offset, 32 - Math.clz32(range));
    return value;
  }

  uint8(value: number): number {
    return this.bits(value, 8);
  }

  uint16(value: number): number {
    return this.bits(value, 16);
  }

  uint32(value: number): number {
    return this.bits(value, 32);
  }

  bits64(value: bigint, bits: number): bigint {
    if (!(bits >= 1 && bits <= 64) || value < 0n || value >> BigInt(bits) !== 0n) {
      throw new RangeError(`bits64: ${value} does not fit in ${bits} bits (bits must be 1..64)`);
    }
    if (bits <= 32) {
      this.writer.writeBits(Number(value), bits);
    } else {
      this.writer.writeBits(Number(value & 0xffffffffn), 32);
      this.writer.writeBits(Number(value >> 32n), bits - 32);
    }
    return value;
  }

  int64(value: bigint, min: bigint, max: bigint): bigint {
    if (!(value >= min && value <= max)) throw new RangeError(`int64: ${value} is outside [${min}, ${max}]`);
    const bits = bitsRequired64(min, max);
    if (bits !== 0) this.bits64(BigInt.asUintN(64, value - min), bits);
    return value;
  }

  uint64(value: bigint): bigint {
    return this.bits64(value, 64);
  }

  float32(value: number): number {
    const problem = float32Problem(value);
    if (problem !== null) throw new RangeError(`float32: ${problem}`);
    this.writer.writeBits(float32ToBits(value), 32);
    return value;
  }

  float64(value: number): number {
    this.writer.writeBits(float64LowBits(value), 32);
    this.writer.writeBits(float64HighBits(), 32);
    return value;
  }

  compressedFloat(value: number, spec: CompressedFloat): number {
    this.writer.writeBits(quantize(value, spec), spec.bits);
    return value;
  }

  align(): void {
    this.writer.writeAlign();
  }

  bytes(value: Uint8Array, length: number): Uint8Array {
    if (value.length !== length) {
      throw new RangeError(`bytes: got ${value.length} bytes where exactly ${length} are declared`);
    }
    this.writer.writeAlign();
    this.writer.writeBytes(value, 0, length);
    return value;
  }

  string(value: string, maxBytes: number): string {
    const length = checkedUtf8Length(value, maxBytes);
    this.int(length, 0, maxBytes);
    this.writer.writeAlign();
    if (length > this.textScratch.length)
      this.textScratch = new Uint8Array(Math.max(length, this.textScratch.length * 2));
    utf8Encode(value, this.textScratch, 0);
    this.writer.writeBytes(this.textScratch, 0, length);
    return value;
  }

  intRelative(previous: number, current: number): number {
    return serializeIntRelative(this, previous, current);
  }

  sequenceRelative(sequence1: number, sequence2: number): number {
    return serializeSequenceRelative(this, sequence1, sequence2);
  }

  check(): void {
    this.writer.writeAlign();
    this.writer.writeBits(SERIALIZE_CHECK_VALUE, 32);
  }

  fail(reason: string): void {
    throw new Error(`serialize: refused to write: ${reason}`);
  }
}
