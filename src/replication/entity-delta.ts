import { bitsRequired } from '../bits/bits-required.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import type { LaneState } from './lane-state.js';
import type { EntityLayout } from './layout.js';
import { pastRange, type ScalarLane } from './plan.js';
import { sameBytes } from './quantize.js';

/**
 * Wire format of one entity's state against a baseline (docs/replication.md, "Wire format:
 * entity state"). With no baseline the delta is taken against the all-zero state: one code path,
 * and a fresh entity's zero lanes (and empty blobs) cost one bit each instead of their width.
 *
 *   scalar lanes (S of them), in lane order, in one of two forms:
 *     S <= 8:  flags form, no tag
 *     S > 8:   1 bit tag, 0 = flags form, 1 = list form (the writer sends the cheaper; flags on a tie)
 *     flags form: per lane 1 bit "changed", followed at once by the lane's value when set (S bits
 *                 of flags in all, as serialize's subset bitmask)
 *     list form:  per changed lane its index as an int in [0, S], followed by its value; then S
 *                 ends the list ((k + 1) * bitsRequired(0, S) bits of indices, as the sentinel subset)
 *   a lane's value:
 *     not delta-capable:  the value in `bits` bits
 *     delta-capable:      a class prefix, c ones then a zero for class c in 0..3, or 1111 for absolute;
 *                         class c: a sign bit (1 = negative), then |d| - DELTA_LOW[c] in DELTA_BITS[c]
 *                         bits, d = value - baseline; absolute: the value in `bits` bits
 *   blob lanes, in order: 1 bit "changed"; when set, the byte length as an int in [0, maxBytes],
 *     then the bytes, 8 bits each, unaligned
 *
 * A reader refuses a lane value above the lane's max, a delta leaving [0, max], the two words of
 * a split int64 past its range, a lane or blob
 * "changed" to its baseline value, list indices not strictly increasing, a blob longer than its
 * maxBytes or than the input left, and a blob its codec does not decode (trailing bits included).
 */

/** Smallest |d| of each delta class, and the bits its offset takes: [1,8] [9,40] [41,168] [169,680]. */
export const DELTA_LOW: readonly number[] = Object.freeze([1, 9, 41, 169]);
export const DELTA_BITS: readonly number[] = Object.freeze([3, 5, 7, 9]);
const CLASSES = DELTA_LOW.length;
/** Largest |d| any class holds. */
const DELTA_MAX = DELTA_LOW[CLASSES - 1] + 2 ** DELTA_BITS[CLASSES - 1] - 1;
/** The absolute prefix, 1111: as many ones as classes. */
const ABSOLUTE_PREFIX = 2 ** CLASSES - 1;
/** Lane counts up to this use the flags form without a tag (a list never wins there). */
export const FLAGS_ONLY_LANES = 8;

/** The first |d| past each class (constants: deltaClass runs per changed lane per client). */
const END_0 = DELTA_LOW[0] + 2 ** DELTA_BITS[0];
const END_1 = DELTA_LOW[1] + 2 ** DELTA_BITS[1];
const END_2 = DELTA_LOW[2] + 2 ** DELTA_BITS[2];

/** The delta class of |d| (d != 0), or -1 when it is too large for any. */
function deltaClass(magnitude: number): number {
  if (magnitude < END_0) return 0;
  if (magnitude < END_1) return 1;
  if (magnitude < END_2) return 2;
  return magnitude <= DELTA_MAX ? 3 : -1;
}

/** Bits the class prefix, sign and offset of class c take. */
const classBits = (c: number): number => c + 2 + DELTA_BITS[c];

/** The class to send a delta-capable lane's change in, or -1 for absolute: whichever is fewer bits. */
function chooseClass(lane: ScalarLane, value: number, base: number): number {
  const c = deltaClass(Math.abs(value - base));
  return c >= 0 && classBits(c) < CLASSES + lane.bits ? c : -1;
}

function valueBits(lane: ScalarLane, value: number, base: number): number {
  if (!lane.delta) return lane.bits;
  const c = chooseClass(lane, value, base);
  return c < 0 ? CLASSES + lane.bits : classBits(c);
}

function changedLanes(state: LaneState, base: LaneState): number {
  let k = 0;
  for (let i = 0; i < state.lanes.length; i++) if (state.lanes[i] !== base.lanes[i]) k++;
  return k;
}

/** Whether the list form is strictly cheaper than flags for k of S lanes changed. */
const useList = (lanes: number, changed: number): boolean =>
  lanes > FLAGS_ONLY_LANES && (changed + 1) * bitsRequired(0, lanes) < lanes;

function checkStates(layout: EntityLayout<unknown>, state: LaneState, baseline: LaneState | null): LaneState {
  layout.checkState(state, 'entity delta');
  if (baseline === null) return layout.zero;
  layout.checkState(baseline, 'entity delta baseline');
  return baseline;
}

/** Exact bits {@link writeDelta} would write for `state` against `baseline` (null: the zero state). */
export function measureDelta<T>(
  layout: EntityLayout<T>,
  state: LaneState,
  baseline: LaneState | null,
): number {
  const base = checkStates(layout as EntityLayout<unknown>, state, baseline);
  const lanes = layout.lanes;
  const count = lanes.length;
  const changed = changedLanes(state, base);
  const list = useList(count, changed);
  let bits = count > FLAGS_ONLY_LANES ? 1 : 0;
  bits += list ? (changed + 1) * bitsRequired(0, count) : count;
  for (let i = 0; i < count; i++) {
    const v = state.lanes[i];
    const b = base.lanes[i];
    if (v !== b) bits += valueBits(lanes[i], v, b);
  }
  for (let i = 0; i < layout.blobs.length; i++) {
    bits += 1;
    const blob = state.blobs[i];
    if (!sameBytes(blob, base.blobs[i])) bits += bitsRequired(0, layout.blobs[i].maxBytes) + blob.length * 8;
  }
  return bits;
}

function writeValue(ws: WriteStream, lane: ScalarLane, value: number, base: number): void {
  if (!lane.delta) {
    ws.bits(value, lane.bits);
    return;
  }
  const c = chooseClass(lane, value, base);
  if (c < 0) {
    ws.bits(ABSOLUTE_PREFIX, CLASSES);
    ws.bits(value, lane.bits);
    return;
  }
  // c ones then a zero, least significant bit first.
  ws.bits(2 ** c - 1, c + 1);
  const d = value - base;
  const offset = Math.abs(d) - DELTA_LOW[c];
  ws.bits((d < 0 ? 1 : 0) | (offset << 1), 1 + DELTA_BITS[c]);
}

/**
 * Writes `state` against `baseline` (null: the zero state). Throws (BitWriterOverflowError) if
 * the stream is too small: {@link measureDelta} tells beforehand. A lane above its max throws.
 */
export function writeDelta<T>(
  ws: WriteStream,
  layout: EntityLayout<T>,
  state: LaneState,
  baseline: LaneState | null,
): void {
  const base = checkStates(layout as EntityLayout<unknown>, state, baseline);
  const lanes = layout.lanes;
  const count = lanes.length;
  for (let i = 0; i < count; i++) {
    if (!(state.lanes[i] <= lanes[i].max)) {
      throw new RangeError(`writeDelta: lane ${lanes[i].path} holds ${state.lanes[i]} > max ${lanes[i].max}`);
    }
  }
  for (const range of layout.wordRanges) {
    if (pastRange(range, state.lanes))
      throw new RangeError(`writeDelta: ${range.path} is past its int64 range`);
  }
  encodeDelta(ws, layout as EntityLayout<unknown>, state, base);
}

/**
 * The encoding writeDelta writes, without its checks: for states the world quantized itself
 * (the server's shared deltas encode ~20,000 per tick at W4). `base` is the layout's zero state
 * for an absolute delta.
 */
export function encodeDelta(
  ws: WriteStream,
  layout: EntityLayout<unknown>,
  state: LaneState,
  base: LaneState,
): void {
  const lanes = layout.lanes;
  const count = lanes.length;
  const changed = changedLanes(state, base);
  const list = useList(count, changed);
  if (count > FLAGS_ONLY_LANES) ws.bits(list ? 1 : 0, 1);
  const indexBits = bitsRequired(0, count);
  for (let i = 0; i < count; i++) {
    const v = state.lanes[i];
    const b = base.lanes[i];
    if (list) {
      if (v === b) continue;
      ws.bits(i, indexBits);
    } else {
      ws.bits(v === b ? 0 : 1, 1);
      if (v === b) continue;
    }
    writeValue(ws, lanes[i], v, b);
  }
  if (list) ws.bits(count, indexBits);
  for (let i = 0; i < layout.blobs.length; i++) {
    const blob = state.blobs[i];
    const same = sameBytes(blob, base.blobs[i]);
    ws.bits(same ? 0 : 1, 1);
    if (same) continue;
    const maxBytes = layout.blobs[i].maxBytes;
    if (blob.length > maxBytes)
      throw new RangeError(`writeDelta: blob ${layout.blobs[i].path} exceeds ${maxBytes} bytes`);
    const lengthBits = bitsRequired(0, maxBytes);
    if (lengthBits > 0) ws.bits(blob.length, lengthBits);
    for (let j = 0; j < blob.length; j++) ws.bits(blob[j], 8);
  }
}

/** Reads one lane's value against its baseline value; on bad input fails the stream and returns base. */
function readValue(rs: ReadStream, lane: ScalarLane, base: number): number {
  let value: number;
  if (!lane.delta) value = rs.bits(0, lane.bits);
  else {
    let c = 0;
    while (c < CLASSES && rs.bits(0, 1) === 1) c++;
    if (c === CLASSES) value = rs.bits(0, lane.bits);
    else {
      const word = rs.bits(0, 1 + DELTA_BITS[c]);
      const magnitude = DELTA_LOW[c] + (word >>> 1);
      value = (word & 1) === 1 ? base - magnitude : base + magnitude;
      if (rs.ok && !(value >= 0 && value <= lane.max)) {
        rs.fail(`${lane.path}: delta leaves the lane's range [0, ${lane.max}]`);
        return base;
      }
    }
  }
  if (!rs.ok) return base;
  if (value > lane.max) rs.fail(`${lane.path}: lane value above its max ${lane.max}`);
  else if (value === base) rs.fail(`${lane.path}: lane sent unchanged`);
  return rs.ok ? value : base;
}

/**
 * Reads a state written against `baseline` (null: the zero state) into `out`, which must not be
 * the baseline. Returns false on bad input, with the reason in `rs.error`; `out` is then
 * unspecified. Never throws on input; work and allocation are bounded by the input's length.
 */
export function readDelta<T>(
  rs: ReadStream,
  layout: EntityLayout<T>,
  baseline: LaneState | null,
  out: LaneState,
): boolean {
  const base = checkStates(layout as EntityLayout<unknown>, out, baseline);
  if (out === base) throw new TypeError('readDelta: out must not be the baseline');
  try {
    readInto(rs, layout as EntityLayout<unknown>, base, out);
  } catch (error) {
    // Unreachable on any input by design; kept so a bug can never escape as an exception.
    rs.fail(
      `internal error while reading an entity: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  return rs.ok;
}

function readInto(rs: ReadStream, layout: EntityLayout<unknown>, base: LaneState, out: LaneState): void {
  const lanes = layout.lanes;
  const count = lanes.length;
  out.lanes.set(base.lanes);
  const list = count > FLAGS_ONLY_LANES && rs.bits(0, 1) === 1;
  if (list) {
    const indexBits = bitsRequired(0, count);
    let previous = -1;
    // Each pass consumes indexBits (>= 4) bits or fails: at most count + 1 passes.
    while (rs.ok) {
      const i = rs.bits(0, indexBits);
      if (!rs.ok || i === count) break;
      if (i > count) rs.fail(`lane index ${i} past the ${count} lanes`);
      else if (i <= previous) rs.fail('lane indices not strictly increasing');
      else {
        out.lanes[i] = readValue(rs, lanes[i], base.lanes[i]);
        previous = i;
      }
    }
  } else {
    for (let i = 0; i < count && rs.ok; i++) {
      if (rs.bits(0, 1) === 1) out.lanes[i] = readValue(rs, lanes[i], base.lanes[i]);
    }
  }
  for (const range of layout.wordRanges) {
    if (rs.ok && pastRange(range, out.lanes)) rs.fail(`${range.path}: int64 words past the range`);
  }
  for (let i = 0; i < layout.blobs.length; i++) {
    out.blobs[i] = base.blobs[i];
    if (!rs.ok || rs.bits(0, 1) === 0) continue;
    const blob = layout.blobs[i];
    const lengthBits = bitsRequired(0, blob.maxBytes);
    const length = lengthBits === 0 ? 0 : rs.bits(0, lengthBits);
    if (length > blob.maxBytes) rs.fail(`${blob.path}: blob longer than ${blob.maxBytes} bytes`);
    // Checked before allocating: a length the input cannot hold costs nothing.
    else if (length * 8 > rs.bitsRemaining) rs.fail(`${blob.path}: blob past the end`);
    if (!rs.ok) return;
    const bytes = new Uint8Array(length);
    for (let j = 0; j < length; j++) bytes[j] = rs.bits(0, 8);
    if (sameBytes(bytes, base.blobs[i])) rs.fail(`${blob.path}: blob sent unchanged`);
    else {
      const decoded = blob.codec.decode(bytes);
      if (!decoded.ok) rs.fail(`${blob.path}: blob does not decode: ${decoded.error}`);
      else out.blobs[i] = bytes;
    }
  }
}
