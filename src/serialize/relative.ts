import type { Stream } from './stream.js';

/**
 * serialize's relative integer ladder, written once over {@link Stream}: a flag per tier, then the
 * difference in that tier's range; differences past the last tier send the absolute value.
 */
const TIER_MIN = [2, 7, 24, 281, 4378];
const TIER_MAX = [6, 23, 280, 4377, 69914];

export function serializeIntRelative(s: Stream, previous: number, current: number): number {
  let difference = 0;
  if (!s.isReading) {
    if (!(previous >>> 0 === previous && current >>> 0 === current && previous < current)) {
      throw new RangeError(
        `intRelative needs uint32 previous < current, got previous ${previous}, current ${current}`,
      );
    }
    difference = current - previous;
  }
  let value: number;
  if (s.bool(difference === 1)) value = previous + 1;
  else {
    let t = 0;
    while (t < TIER_MAX.length && !s.bool(difference <= TIER_MAX[t])) t++;
    value = t < TIER_MAX.length ? previous + s.int(difference, TIER_MIN[t], TIER_MAX[t]) : s.uint32(current);
  }
  if (!s.isReading) return current;
  if (value <= previous) s.fail('relative value not after previous');
  else if (value > 0xffffffff) s.fail('relative value past uint32');
  // After a failure the value is still after `previous`, so a caller's loop keeps advancing.
  return s.ok ? value : previous + 1;
}

/** yojimbo's serialize_sequence_relative: sequence2 as an intRelative from sequence1 across the 16-bit wrap. */
export function serializeSequenceRelative(s: Stream, sequence1: number, sequence2: number): number {
  if (
    !s.isReading &&
    !(
      sequence1 >>> 0 === sequence1 &&
      sequence1 <= 0xffff &&
      sequence2 >>> 0 === sequence2 &&
      sequence2 <= 0xffff
    )
  ) {
    throw new RangeError(`sequenceRelative needs 16-bit sequences, got ${sequence1}, ${sequence2}`);
  }
  let value = serializeIntRelative(s, sequence1, sequence2 + (sequence1 > sequence2 ? 65536 : 0));
  // A writer sends a value in (sequence1, sequence1 + 65536); from sequence1 + 65536 on it would
  // wrap to a sequence at or past sequence1, which no writer can send.
  if (value >= sequence1 + 65536) {
    s.fail('relative sequence wraps past sequence1');
    return 0;
  }
  if (value >= 65536) value -= 65536;
  return value;
}
