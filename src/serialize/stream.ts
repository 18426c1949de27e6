import type { CompressedFloat } from './compressed-float.js';

/**
 * The one interface a serialize function is written against, so the same function writes, reads
 * and measures (Fiedler's unified serialize function). JavaScript has no out-parameters, so every
 * primitive takes the current value and returns the value to keep:
 *
 * ```ts
 * function serializeEntity(s: Stream, e: Entity): void {
 *   e.id = s.int(e.id, 0, 4095);
 *   e.health = s.int(e.health, 0, 100);
 * }
 * ```
 *
 * Writing and measuring return the value given (after checking it); reading ignores it and returns
 * what was read. A read that fails records its reason and bit, after which every read returns a
 * neutral in-range value at once (`min`, 0, false, ''), so user code keeps its invariants, stays
 * bounded, and checks {@link ok} once at the end instead of after every field.
 */
export interface Stream {
  readonly isWriting: boolean;
  readonly isReading: boolean;
  readonly isMeasuring: boolean;
  /** False once a read has failed (always true when writing or measuring). */
  readonly ok: boolean;
  /** Bits written, read, or (for measuring) counted so far. */
  readonly bitsProcessed: number;

  /** An unsigned integer of `bits` bits, 1..32. */
  bits(value: number, bits: number): number;
  bool(value: boolean): boolean;
  /** An integer in [min, max] in bitsRequired(min, max) bits (0 bits when min == max); max - min < 2^32. */
  int(value: number, min: number, max: number): number;
  uint8(value: number): number;
  uint16(value: number): number;
  uint32(value: number): number;
  /** An unsigned integer of `bits` bits, 1..64: low 32 bits first, then the rest. */
  bits64(value: bigint, bits: number): bigint;
  /** A 64-bit integer in [min, max]; up to 32 bits of range in one group, else low 32 then high. */
  int64(value: bigint, min: bigint, max: bigint): bigint;
  uint64(value: bigint): bigint;
  /** IEEE-754 single precision, 32 raw bits. */
  float32(value: number): number;
  /** IEEE-754 double precision, 64 raw bits, low word first. */
  float64(value: number): number;
  /** A float quantized to a declared range and resolution (see `compressedFloat`). */
  compressedFloat(value: number, spec: CompressedFloat): number;
  /** Zero bits to the next byte boundary; a reader rejects non-zero padding. */
  align(): void;
  /** Exactly `length` raw bytes after aligning; a read returns a new array. */
  bytes(value: Uint8Array, length: number): Uint8Array;
  /**
   * UTF-8 text of at most `maxBytes` bytes: its length as int [0, maxBytes], then the bytes
   * (aligned). The C reference's `serialize_string(stream, s, buffer_size)` is `maxBytes = buffer_size - 1`.
   */
  string(value: string, maxBytes: number): string;
  /** `current` relative to `previous` (previous < current, both uint32): 1 bit for +1, growing tiers. */
  intRelative(previous: number, current: number): number;
  /** A 16-bit sequence relative to an earlier one, aware of wrap-around (yojimbo's encoding). */
  sequenceRelative(sequence1: number, sequence2: number): number;
  /** Aligns, then a known 32-bit value the reader verifies: catches a desynchronised serializer. */
  check(): void;
  /**
   * Rejects what was read, with a reason (a reader records it and stops); while writing or
   * measuring it throws, because the caller handed in a value it must not send.
   */
  fail(reason: string): void;
}

/** The value {@link Stream.check} writes (the one yojimbo uses). */
export const SERIALIZE_CHECK_VALUE = 0x12345678;
