import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import type { ScalarLane } from './plan.js';

/**
 * One changed scalar lane's value on the wire against its baseline value (docs/replication.md,
 * "Wire format: entity state", the table of a changed lane's value): as it is, as a signed
 * difference in one of the delta classes, or for a rotation lane per component. entity-delta.ts
 * writes the sets of changed lanes around these.
 */

/**
 * Smallest |d| of each delta class, and the bits its offset takes: [1,4] [5,12] [13,28] [29,60]
 * [61,124] [125,380]. Each class doubles the range of the one before (the changes of a moving
 * thing spread about evenly over the octaves), the last one reaching far for a rare big move.
 */
export const DELTA_BITS: readonly number[] = Object.freeze([2, 3, 4, 5, 6, 8]);
export const DELTA_LOW: readonly number[] = Object.freeze(
  DELTA_BITS.map((_, c) => DELTA_BITS.slice(0, c).reduce((low, bits) => low + 2 ** bits, 1)),
);
export const CLASSES = DELTA_LOW.length;
/** Largest |d| any class holds. */
const DELTA_MAX = DELTA_LOW[CLASSES - 1] + 2 ** DELTA_BITS[CLASSES - 1] - 1;
/** The absolute prefix, 111111: as many ones as classes. */
export const ABSOLUTE_PREFIX = 2 ** CLASSES - 1;

/** The smallest |d| of classes 1..5 (class 0 starts at 1), as constants: deltaClass runs per lane per delta. */
const LOW_1 = DELTA_LOW[1];
const LOW_2 = DELTA_LOW[2];
const LOW_3 = DELTA_LOW[3];
const LOW_4 = DELTA_LOW[4];
const LOW_5 = DELTA_LOW[5];
if (CLASSES !== 6) throw new Error('lane-value: deltaClass assumes six delta classes');

/** The delta class of |d| (d != 0), or -1 when it is too large for any. */
function deltaClass(magnitude: number): number {
  if (magnitude < LOW_2) return magnitude < LOW_1 ? 0 : 1;
  if (magnitude < LOW_4) return magnitude < LOW_3 ? 2 : 3;
  if (magnitude < LOW_5) return 4;
  return magnitude > DELTA_MAX ? -1 : 5;
}

/** Bits the class prefix, sign and offset of class c take. */
const classBits = (c: number): number => c + 2 + DELTA_BITS[c];

/** The class to send a delta-capable lane's change in, or -1 for absolute: whichever is fewer bits. */
function chooseClass(lane: ScalarLane, value: number, base: number): number {
  const c = deltaClass(Math.abs(value - base));
  return c >= 0 && classBits(c) < CLASSES + lane.bits ? c : -1;
}

/** The class to send a component's change in (width `bits`), or -1 for absolute. */
function chooseComponentClass(bits: number, value: number, base: number): number {
  const c = deltaClass(Math.abs(value - base));
  return c >= 0 && classBits(c) < CLASSES + bits ? c : -1;
}

/** A smallest-three lane's component k (0..2) of `bits` bits. */
const component = (value: number, k: number, bits: number): number =>
  (value >>> (2 + k * bits)) & (2 ** bits - 1);

/** Bits of a rotation lane's change in the component form (largest index kept), its leading bit included. */
function componentFormBits(bits: number, value: number, base: number): number {
  let total = 1;
  for (let k = 0; k < 3; k++) {
    const v = component(value, k, bits);
    const b = component(base, k, bits);
    if (v === b) total += 1;
    else {
      const c = chooseComponentClass(bits, v, b);
      total += 1 + (c < 0 ? CLASSES + bits : classBits(c));
    }
  }
  return total;
}

/**
 * Whether a rotation lane's change goes in the component form: same largest index, and fewer
 * bits. `width`: the lane's bits; `bits`: a component's.
 */
export const useComponents = (width: number, bits: number, value: number, base: number): boolean =>
  (value & 3) === (base & 3) && componentFormBits(bits, value, base) < 1 + width;

/** DELTA_BITS and DELTA_LOW as typed arrays, for classPiece. */
const OFFSET_BITS = Int32Array.from(DELTA_BITS);
const CLASS_LOW = Int32Array.from(DELTA_LOW);

/**
 * A change of a delta-capable value of `bits` bits in its class form, as one piece: the prefix,
 * sign and offset as writeClassDelta writes them (least significant first) + their count × 2^16;
 * -1 when the absolute form is fewer bits. Integer arithmetic only (at most 15 bits a piece).
 */
export function classPiece(bits: number, value: number, base: number): number {
  const d = value - base;
  const magnitude = d < 0 ? -d : d;
  const c = deltaClass(magnitude);
  if (c < 0) return -1;
  const length = c + 2 + OFFSET_BITS[c];
  if (length >= CLASSES + bits) return -1;
  const signAndOffset = (d < 0 ? 1 : 0) | ((magnitude - CLASS_LOW[c]) << 1);
  return ((1 << c) - 1) | (signAndOffset << (c + 1)) | (length << 16);
}

/** The most bits a lane's value may take against any base (the absolute forms). */
export function maxValueBits(lane: ScalarLane): number {
  if (lane.rotation > 0) return 1 + lane.bits;
  return lane.delta ? CLASSES + lane.bits : lane.bits;
}

export function valueBits(lane: ScalarLane, value: number, base: number): number {
  if (lane.rotation > 0)
    return useComponents(lane.bits, lane.rotation, value, base)
      ? componentFormBits(lane.rotation, value, base)
      : 1 + lane.bits;
  if (!lane.delta) return lane.bits;
  const c = chooseClass(lane, value, base);
  return c < 0 ? CLASSES + lane.bits : classBits(c);
}

/** A difference in class c (>= 0): the prefix (c ones then a zero), the sign, the offset. */
function writeClassDelta(ws: WriteStream, c: number, value: number, base: number): void {
  // c ones then a zero, least significant bit first.
  ws.bits(2 ** c - 1, c + 1);
  const d = value - base;
  const offset = Math.abs(d) - DELTA_LOW[c];
  ws.bits((d < 0 ? 1 : 0) | (offset << 1), 1 + DELTA_BITS[c]);
}

/** A rotation lane's change: `1` + per component `0` (same) or `1` + its value; or `0` + the lane. */
function writeRotation(ws: WriteStream, lane: ScalarLane, value: number, base: number): void {
  if (!useComponents(lane.bits, lane.rotation, value, base)) {
    ws.bits(0, 1);
    ws.bits(value, lane.bits);
    return;
  }
  ws.bits(1, 1);
  const bits = lane.rotation;
  for (let k = 0; k < 3; k++) {
    const v = component(value, k, bits);
    const b = component(base, k, bits);
    ws.bits(v === b ? 0 : 1, 1);
    if (v === b) continue;
    const c = chooseComponentClass(bits, v, b);
    if (c >= 0) writeClassDelta(ws, c, v, b);
    else {
      ws.bits(ABSOLUTE_PREFIX, CLASSES);
      ws.bits(v, bits);
    }
  }
}

export function writeValue(ws: WriteStream, lane: ScalarLane, value: number, base: number): void {
  if (lane.rotation > 0) {
    writeRotation(ws, lane, value, base);
    return;
  }
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
  writeClassDelta(ws, c, value, base);
}

/**
 * Reads a class prefix and what follows it against `base`, for a value of `bits` bits and at most
 * `max`; on a delta leaving [0, max] fails the stream and returns base.
 */
function readNumber(rs: ReadStream, path: string, bits: number, max: number, base: number): number {
  let c = 0;
  while (c < CLASSES && rs.bits(0, 1) === 1) c++;
  if (c === CLASSES) return rs.bits(0, bits);
  const word = rs.bits(0, 1 + DELTA_BITS[c]);
  const magnitude = DELTA_LOW[c] + (word >>> 1);
  const value = (word & 1) === 1 ? base - magnitude : base + magnitude;
  if (rs.ok && !(value >= 0 && value <= max)) {
    rs.fail(`${path}: delta leaves the lane's range [0, ${max}]`);
    return base;
  }
  return value;
}

/** A rotation lane's change (see writeRotation); each component sent must differ from the baseline's. */
function readRotation(rs: ReadStream, lane: ScalarLane, base: number): number {
  if (rs.bits(0, 1) === 0) return rs.bits(0, lane.bits);
  const bits = lane.rotation;
  const max = 2 ** bits - 1;
  let value = base & 3;
  for (let k = 0; k < 3; k++) {
    const b = component(base, k, bits);
    let v = b;
    if (rs.bits(0, 1) === 1) {
      v = readNumber(rs, lane.path, bits, max, b);
      if (rs.ok && v === b) rs.fail(`${lane.path}: component ${k} sent unchanged`);
    }
    value += v * 2 ** (2 + k * bits);
  }
  return value;
}

/** Reads one lane's value against its baseline value; on bad input fails the stream and returns base. */
export function readValue(rs: ReadStream, lane: ScalarLane, base: number): number {
  let value: number;
  if (lane.rotation > 0) value = readRotation(rs, lane, base);
  else if (!lane.delta) value = rs.bits(0, lane.bits);
  else {
    value = readNumber(rs, lane.path, lane.bits, lane.max, base);
    if (!rs.ok) return base;
  }
  if (!rs.ok) return base;
  if (value > lane.max) rs.fail(`${lane.path}: lane value above its max ${lane.max}`);
  else if (value === base) rs.fail(`${lane.path}: lane sent unchanged`);
  return rs.ok ? value : base;
}
