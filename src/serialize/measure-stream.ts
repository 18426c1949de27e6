import { bitsRequired, bitsRequired64 } from '../bits/bits-required.js';
import type { CompressedFloat } from './compressed-float.js';
import { serializeIntRelative, serializeSequenceRelative } from './relative.js';
import type { Stream } from './stream.js';
import { checkedUtf8Length } from './utf8.js';

/** Worst-case padding an align can cost: the measure does not know where the writer will be. */
export const ALIGN_WORST_CASE = 7;

/**
 * Counts the bits a {@link WriteStream} would write, without writing: a conservative upper bound
 * (every align is charged its worst case), cheap enough to run on every message when packing.
 * It checks only what it needs to count.
 */
export class MeasureStream implements Stream {
  readonly isWriting = false;
  readonly isReading = false;
  readonly isMeasuring = true;
  readonly ok = true;
  private count = 0;

  get bitsProcessed(): number {
    return this.count;
  }

  /** Bytes the counted bits occupy (rounded up). */
  get bytesProcessed(): number {
    return (this.count + 7) >>> 3;
  }

  reset(): void {
    this.count = 0;
  }

  bits(value: number, bits: number): number {
    this.count += bits;
    return value;
  }

  bool(value: boolean): boolean {
    this.count += 1;
    return value;
  }

  int(value: number, min: number, max: number): number {
    this.count += bitsRequired(min, max);
    return value;
  }

  uint8(value: number): number {
    this.count += 8;
    return value;
  }

  uint16(value: number): number {
    this.count += 16;
    return value;
  }

  uint32(value: number): number {
    this.count += 32;
    return value;
  }

  bits64(value: bigint, bits: number): bigint {
    this.count += bits;
    return value;
  }

  int64(value: bigint, min: bigint, max: bigint): bigint {
    this.count += bitsRequired64(min, max);
    return value;
  }

  uint64(value: bigint): bigint {
    this.count += 64;
    return value;
  }

  float32(value: number): number {
    this.count += 32;
    return value;
  }

  float64(value: number): number {
    this.count += 64;
    return value;
  }

  compressedFloat(value: number, spec: CompressedFloat): number {
    this.count += spec.bits;
    return value;
  }

  align(): void {
    this.count += ALIGN_WORST_CASE;
  }

  bytes(value: Uint8Array, length: number): Uint8Array {
    this.count += ALIGN_WORST_CASE + length * 8;
    return value;
  }

  string(value: string, maxBytes: number): string {
    const length = checkedUtf8Length(value, maxBytes);
    this.count += bitsRequired(0, maxBytes) + ALIGN_WORST_CASE + length * 8;
    return value;
  }

  intRelative(previous: number, current: number): number {
    return serializeIntRelative(this, previous, current);
  }

  sequenceRelative(sequence1: number, sequence2: number): number {
    return serializeSequenceRelative(this, sequence1, sequence2);
  }

  check(): void {
    this.count += ALIGN_WORST_CASE + 32;
  }

  fail(reason: string): void {
    throw new Error(`serialize: refused to measure: ${reason}`);
  }
}
