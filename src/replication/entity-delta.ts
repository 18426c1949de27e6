import { bitsRequired } from '../bits/bits-required.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import type { EntityLayout } from './entity-layout.js';
import type { LaneState } from './lane-state.js';
import { maxValueBits, readValue, valueBits, writeValue } from './lane-value.js';
import { pastRange } from './plan.js';
import { MASK_LANES, PreviousChanges } from './previous-changes.js';
import { sameBytes } from './quantizer.js';

export { DELTA_BITS, DELTA_LOW } from './lane-value.js';
export { PreviousChanges };

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
 *   a lane's value: see lane-value.ts (as it is, in a delta class, or per component for a rotation)
 *   blob lanes, in order: 1 bit "changed"; when set, the byte length as an int in [0, maxBytes],
 *     then the bytes, 8 bits each, unaligned
 *
 * In a run of deltas (a section's updates) with a {@link PreviousChanges}, a delta of the same
 * layout as the one before starts with a repeat prefix naming one of the last two distinct
 * changed-lane sets of the run: `1` the newest, `01` the one before it, `00` neither (`0` when the
 * run has had one set so far). For a repeat, no tag, flags or indices follow, only the changed
 * lanes' values in lane order; for neither, the form above. Moving things tend to change the same
 * fields (W3: 64% of updates repeat the newest set, 17% the one before), so this costs a bit or
 * two where the flags cost S.
 *
 * A reader refuses a lane value above the lane's max, a delta leaving [0, max], the two words of
 * a split int64 past its range, a lane or blob
 * "changed" to its baseline value, list indices not strictly increasing, a blob longer than its
 * maxBytes or than the input left, a blob its codec does not decode (trailing bits included), and
 * a blob left as the zero state's empty placeholder when its codec does not decode that.
 */

/** Lane counts up to this use the flags form without a tag (a list never wins there). */
export const FLAGS_ONLY_LANES = 8;

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

/**
 * The most bits any state of the layout may take against any baseline (a repeat prefix not
 * included): flags or list, every lane in its longest form, every blob at its most bytes.
 */
export function maxDeltaBits(layout: EntityLayout<unknown>): number {
  const count = layout.lanes.length;
  let bits = count > FLAGS_ONLY_LANES ? 1 + count : count;
  for (const lane of layout.lanes) bits += maxValueBits(lane);
  for (const blob of layout.blobs) bits += 1 + bitsRequired(0, blob.maxBytes) + blob.maxBytes * 8;
  return bits;
}

/**
 * Exact bits {@link writeDelta} would write for `state` against `baseline` (null: the zero state),
 * after the delta `previous` holds (none when absent).
 */
export function measureDelta<T>(
  layout: EntityLayout<T>,
  state: LaneState,
  baseline: LaneState | null,
  previous?: PreviousChanges,
): number {
  const base = checkStates(layout as EntityLayout<unknown>, state, baseline);
  const lanes = layout.lanes;
  const count = lanes.length;
  const any = layout as EntityLayout<unknown>;
  const form = previous === undefined ? 0 : previous.match(any, state, base);
  let bits = previous === undefined ? 0 : previous.prefixBits(any, form);
  if (form === 0) {
    const changed = changedLanes(state, base);
    bits += count > FLAGS_ONLY_LANES ? 1 : 0;
    bits += useList(count, changed) ? (changed + 1) * bitsRequired(0, count) : count;
  }
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

/**
 * Writes `state` against `baseline` (null: the zero state), after the delta `previous` holds (and
 * records this one there). Throws (BitWriterOverflowError) if the stream is too small:
 * {@link measureDelta} tells beforehand. A lane above its max throws.
 */
export function writeDelta<T>(
  ws: WriteStream,
  layout: EntityLayout<T>,
  state: LaneState,
  baseline: LaneState | null,
  previous?: PreviousChanges,
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
  const any = layout as EntityLayout<unknown>;
  const form = previous === undefined ? 0 : previous.match(any, state, base);
  const prefix = previous === undefined ? 0 : previous.prefixBits(any, form);
  // `1` the newest set, `01` the one before, `00` (or `0` with one set held) neither.
  if (prefix > 0) ws.bits(form === 1 ? 1 : form === 2 ? 0b10 : 0, prefix);
  previous?.record(any, state, base);
  encodeDelta(ws, any, state, base, form !== 0);
}

/**
 * The encoding writeDelta writes after its repeat prefix, without its checks (DeltaForms in
 * delta-forms.ts writes the same, both forms at once, for the server's shared deltas). `base` is
 * the layout's zero state for an absolute delta; `repeat`: the changed lanes are the set the
 * prefix named, so only their values follow.
 */
export function encodeDelta(
  ws: WriteStream,
  layout: EntityLayout<unknown>,
  state: LaneState,
  base: LaneState,
  repeat = false,
): void {
  const lanes = layout.lanes;
  const count = lanes.length;
  const changed = changedLanes(state, base);
  const list = !repeat && useList(count, changed);
  if (!repeat && count > FLAGS_ONLY_LANES) ws.bits(list ? 1 : 0, 1);
  const indexBits = bitsRequired(0, count);
  for (let i = 0; i < count; i++) {
    const v = state.lanes[i];
    const b = base.lanes[i];
    if (repeat) {
      if (v === b) continue;
    } else if (list) {
      if (v === b) continue;
      ws.bits(i, indexBits);
    } else {
      ws.bits(v === b ? 0 : 1, 1);
      if (v === b) continue;
    }
    writeValue(ws, lanes[i], v, b);
  }
  if (list) ws.bits(count, indexBits);
  encodeBlobs(ws, layout, state, base);
}

/** The blob lanes of a delta. */
function encodeBlobs(
  ws: WriteStream,
  layout: EntityLayout<unknown>,
  state: LaneState,
  base: LaneState,
): void {
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

/**
 * Reads a state written against `baseline` (null: the zero state) into `out`, which must not be
 * the baseline, after the delta `previous` holds (and records this one there). Returns false on
 * bad input, with the reason in `rs.error`; `out` is then unspecified. Never throws on input; work
 * and allocation are bounded by the input's length.
 */
export function readDelta<T>(
  rs: ReadStream,
  layout: EntityLayout<T>,
  baseline: LaneState | null,
  out: LaneState,
  previous?: PreviousChanges,
): boolean {
  const any = layout as EntityLayout<unknown>;
  const base = checkStates(any, out, baseline);
  if (out === base) throw new TypeError('readDelta: out must not be the baseline');
  return readStagedDelta(rs, any, base, out, previous ?? null) >= 0;
}

/**
 * {@link readDelta} for a reader that makes its own states (GhostReceiver): `base` (the layout's
 * zero state for none) and `out` are states of `layout`, distinct, so their shapes are not checked
 * again per entity. Returns -1 on bad input (the reason in `rs.error`), else 1 when `out` differs
 * from `base` and 0 when it is the same state (a delta with nothing changed).
 */
export function readStagedDelta(
  rs: ReadStream,
  layout: EntityLayout<unknown>,
  base: LaneState,
  out: LaneState,
  previous: PreviousChanges | null,
): number {
  return readCore(rs, layout, base.lanes, 0, base.blobs, out, previous, base);
}

/**
 * {@link readStagedDelta} against a baseline whose lanes are `source[at..at + lanes)` (a history's
 * record, read where it lies, without its state object) and whose blobs are `baseBlobs`; for a
 * layout of at most MASK_LANES lanes (its changed set is kept as a mask).
 */
export function readStagedLanes(
  rs: ReadStream,
  layout: EntityLayout<unknown>,
  source: Uint32Array,
  at: number,
  baseBlobs: readonly Uint8Array[],
  out: LaneState,
  previous: PreviousChanges | null,
): number {
  if (layout.lanes.length > MASK_LANES)
    throw new RangeError(`readStagedLanes: a layout of more than ${MASK_LANES} lanes`);
  return readCore(rs, layout, source, at, baseBlobs, out, previous, null);
}

/** `base`: the baseline as a state, needed past MASK_LANES lanes (null otherwise). */
function readCore(
  rs: ReadStream,
  layout: EntityLayout<unknown>,
  source: Uint32Array,
  at: number,
  baseBlobs: readonly Uint8Array[],
  out: LaneState,
  previous: PreviousChanges | null,
  base: LaneState | null,
): number {
  let changed = 0;
  try {
    let repeat: Uint8Array | null = null;
    if (previous !== null && previous.layout === layout) {
      // `1` the newest set; `01` the one before (when one is held); else neither.
      const newest = rs.bits(0, 1) === 1;
      const before = !newest && previous.hasSecond && rs.bits(0, 1) === 1;
      repeat = newest ? previous.first : before ? previous.second : null;
    }
    const mask = readInto(rs, layout, source, at, baseBlobs, out, repeat);
    if (!rs.ok) return -1;
    // Every lane read differs from its baseline (readValue refuses one sent unchanged), so the
    // lanes read are the changed set: recorded as the mask built while reading where one fits.
    if (previous !== null) {
      if (layout.lanes.length <= MASK_LANES) previous.recordMask(layout, mask);
      else previous.record(layout, out, base!);
    }
    changed = mask !== 0 ? 1 : 0;
    for (let i = 0; i < layout.blobs.length; i++) if (out.blobs[i] !== baseBlobs[i]) changed = 1;
  } catch (error) {
    // Unreachable on any input by design; kept so a bug can never escape as an exception.
    rs.fail(
      `internal error while reading an entity: ${error instanceof Error ? error.message : String(error)}`,
    );
    return -1;
  }
  return changed;
}

/**
 * `repeat`: the lanes the previous delta changed, when this one repeats them (else null). Returns
 * the lanes read as a mask (bit i: lane i) for a layout of at most MASK_LANES lanes, else 1 when
 * any lane was read and 0 when none.
 */
function readInto(
  rs: ReadStream,
  layout: EntityLayout<unknown>,
  source: Uint32Array,
  at: number,
  baseBlobs: readonly Uint8Array[],
  out: LaneState,
  repeat: Uint8Array | null,
): number {
  const lanes = layout.lanes;
  const count = lanes.length;
  const target = out.lanes;
  // By hand: TypedArray.prototype.set costs more than copying a few lanes.
  for (let i = 0; i < count; i++) target[i] = source[at + i];
  const list = repeat === null && count > FLAGS_ONLY_LANES && rs.bits(0, 1) === 1;
  // Past MASK_LANES lanes the bits wrap: only "any lane read" is kept then.
  let mask = 0;
  let any = 0;
  if (repeat !== null) {
    for (let i = 0; i < count && rs.ok; i++) {
      if (repeat[i] === 1) {
        target[i] = readValue(rs, lanes[i], source[at + i]);
        mask |= 1 << i;
        any = 1;
      }
    }
  } else if (list) {
    const indexBits = bitsRequired(0, count);
    let previous = -1;
    // Each pass consumes indexBits (>= 4) bits or fails: at most count + 1 passes.
    while (rs.ok) {
      const i = rs.bits(0, indexBits);
      if (!rs.ok || i === count) break;
      if (i > count) rs.fail(`lane index ${i} past the ${count} lanes`);
      else if (i <= previous) rs.fail('lane indices not strictly increasing');
      else {
        target[i] = readValue(rs, lanes[i], source[at + i]);
        mask |= 1 << i;
        any = 1;
        previous = i;
      }
    }
  } else {
    for (let i = 0; i < count && rs.ok; i++) {
      if (rs.bits(0, 1) === 1) {
        target[i] = readValue(rs, lanes[i], source[at + i]);
        mask |= 1 << i;
        any = 1;
      }
    }
  }
  const ranges = layout.wordRanges;
  for (let r = 0; r < ranges.length; r++) {
    if (rs.ok && pastRange(ranges[r], target)) rs.fail(`${ranges[r].path}: int64 words past the range`);
  }
  if (layout.blobs.length > 0) readBlobs(rs, layout, baseBlobs, out);
  return count <= MASK_LANES ? mask : any;
}

/** The blob lanes of a delta (see readInto). */
function readBlobs(
  rs: ReadStream,
  layout: EntityLayout<unknown>,
  baseBlobs: readonly Uint8Array[],
  out: LaneState,
): void {
  for (let i = 0; i < layout.blobs.length; i++) {
    out.blobs[i] = baseBlobs[i];
    if (!rs.ok) continue;
    const blob = layout.blobs[i];
    if (rs.bits(0, 1) === 0) {
      // An empty blob is the zero state's placeholder, an encoding only of a field that can take
      // no bits (t.string(0)): kept otherwise, it would leave a state that does not dequantize.
      const kept = baseBlobs[i];
      if (rs.ok && kept.length === 0 && !blob.codec.decode(kept).ok)
        rs.fail(`${blob.path}: blob missing against the zero state`);
      continue;
    }
    const lengthBits = bitsRequired(0, blob.maxBytes);
    const length = lengthBits === 0 ? 0 : rs.bits(0, lengthBits);
    if (length > blob.maxBytes) rs.fail(`${blob.path}: blob longer than ${blob.maxBytes} bytes`);
    // Checked before allocating: a length the input cannot hold costs nothing.
    else if (length * 8 > rs.bitsRemaining) rs.fail(`${blob.path}: blob past the end`);
    if (!rs.ok) return;
    const bytes = new Uint8Array(length);
    for (let j = 0; j < length; j++) bytes[j] = rs.bits(0, 8);
    if (sameBytes(bytes, baseBlobs[i])) rs.fail(`${blob.path}: blob sent unchanged`);
    else {
      const decoded = blob.codec.decode(bytes);
      if (!decoded.ok) rs.fail(`${blob.path}: blob does not decode: ${decoded.error}`);
      else out.blobs[i] = bytes;
    }
  }
}
