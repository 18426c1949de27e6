import { bitsRequired } from '../bits/bits-required.js';
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';

/**
 * The ghost section's small encodings (docs/replication.md, "Wire format: ghost section"), shared
 * by the server's writer and the client's reader so the two cannot drift apart.
 */

/** Bits of the server tick at the head of a section. */
export const TICK_BITS = 32;
/** Bits of the configuration fingerprint a section carries until the client acks one. */
export const CONFIGURATION_BITS = 32;
/** Bits of an entity generation (they wrap). */
export const GENERATION_BITS = 16;
/** Baseline offsets up to this go in the short form. */
const SHORT_OFFSET_BITS = 4;
const SHORT_OFFSET_MAX = 1 << SHORT_OFFSET_BITS;
/**
 * Gaps between update ids up to this go in the short form: 32 covers a row of a grid of a few
 * dozen columns (W3's cubes: 30), whose neighbours' ids are that far apart.
 */
const SHORT_GAP_BITS = 5;
const SHORT_GAP_MAX = 1 << SHORT_GAP_BITS;

/** Bits an id takes in full for a world of `capacity` ids. */
export const idBits = (capacity: number): number => bitsRequired(0, capacity - 1);

/** The most bits `writeUpdateId` can take: what the selection budgets before ids are sorted. */
export const maxUpdateIdBits = (capacity: number): number => 2 + idBits(capacity);

/** Bits of the update count at the head of the update list (an int in [0, capacity]). */
export const updateCountBits = (capacity: number): number => bitsRequired(0, capacity);

/** The update list's count: updates follow without a bit each saying one more comes. */
export function writeUpdateCount(ws: WriteStream, count: number, capacity: number): void {
  ws.int(count, 0, capacity);
}

export function readUpdateCount(rs: ReadStream, capacity: number): number {
  return rs.int(0, 0, capacity);
}

/**
 * An update's id after the previous one's (`previous` -1 for the first; ids strictly increase):
 * `1` the next id; `01` + 5 bits a gap of 1..32 skipped ids; `00` + the id in full.
 */
export function writeUpdateId(ws: WriteStream, previous: number, id: number, capacity: number): void {
  const gap = id - previous - 1;
  if (gap === 0) {
    ws.bits(1, 1);
  } else if (gap <= SHORT_GAP_MAX) {
    ws.bits(0b10, 2); // least significant bit first: 0, then 1
    ws.bits(gap - 1, SHORT_GAP_BITS);
  } else {
    ws.bits(0, 2);
    ws.int(id, 0, capacity - 1);
  }
}

/** Reads an update id; fails the stream when it does not come after `previous`. */
export function readUpdateId(rs: ReadStream, previous: number, capacity: number): number {
  let id = previous + 1;
  if (rs.bits(0, 1) === 0) {
    const short = rs.bits(0, 1) === 1;
    id = short ? previous + 2 + rs.bits(0, SHORT_GAP_BITS) : rs.int(0, 0, capacity - 1);
  }
  if (rs.ok && (id <= previous || id >= capacity))
    rs.fail(`update id ${id} not in (${previous}, ${capacity})`);
  return id;
}

/**
 * A tick before `reference` (a baseline before the section's tick, an event's tick before it),
 * after the caller's own first bit: `0` + 4 bits, 1..16 ticks back; `1` + 32 bits, the tick.
 */
export function tickBeforeBits(reference: number, tick: number): number {
  return reference - tick <= SHORT_OFFSET_MAX ? 1 + SHORT_OFFSET_BITS : 1 + TICK_BITS;
}

export function writeTickBefore(ws: WriteStream, reference: number, tick: number): void {
  const offset = reference - tick;
  if (offset <= SHORT_OFFSET_MAX) {
    ws.bits(0, 1);
    ws.bits(offset - 1, SHORT_OFFSET_BITS);
  } else {
    ws.bits(1, 1);
    ws.bits(tick, TICK_BITS);
  }
}

/** Reads what writeTickBefore wrote (the caller checks the range). */
export function readTickBefore(rs: ReadStream, reference: number): number {
  return rs.bits(0, 1) === 0 ? reference - 1 - rs.bits(0, SHORT_OFFSET_BITS) : rs.bits(0, TICK_BITS);
}

/** Bits of a baseline in its explicit form: absolute (`0`), or `1` + the tick before the section's. */
function explicitBaselineBits(tick: number, baselineTick: number): number {
  return baselineTick < 0 ? 1 : 1 + tickBeforeBits(tick, baselineTick);
}

/**
 * The most bits an update's baseline takes (what the selection budgets before the section's
 * reference is chosen): the escape bit and the explicit form.
 */
export const baselineBits = (tick: number, baselineTick: number): number =>
  2 + explicitBaselineBits(tick, baselineTick);

/** What `readBaseline` returns for "the newest state the client holds of that ghost". */
export const NEWEST_HELD = -2;

/** The most bits of the update list's reference baseline. */
export const MAX_REFERENCE_BITS = 3 + TICK_BITS;

/**
 * The update list's reference baseline (after the count, when it is not 0): the baseline most of
 * the section's updates share, so each of them names it in one bit. `1` the newest state the
 * client holds of each ghost (things that change now and then, every write acked), `0` + the
 * explicit form (for things that move every tick: the client's newest acked section).
 */
export function writeReference(ws: WriteStream, tick: number, reference: number): void {
  if (reference === NEWEST_HELD) ws.bits(1, 1);
  else {
    ws.bits(0, 1);
    writeExplicitBaseline(ws, tick, reference);
  }
}

export const readReference = (rs: ReadStream, tick: number): number =>
  rs.bits(0, 1) === 1 ? NEWEST_HELD : readExplicitBaseline(rs, tick);

/**
 * An update's baseline: `1` the section's reference; `01` the newest state the client holds of
 * that ghost (the server knows it when every write of the entity since the acked one was acked,
 * so the client cannot hold a newer one; it saves naming a tick for things that change now and
 * then); `00` + the explicit form.
 */
export function writeBaseline(
  ws: WriteStream,
  tick: number,
  baselineTick: number,
  reference: number,
  newestHeld: boolean,
): void {
  if (baselineTick === reference || (newestHeld && reference === NEWEST_HELD)) ws.bits(1, 1);
  else if (newestHeld) ws.bits(0b10, 2);
  else {
    ws.bits(0, 2);
    writeExplicitBaseline(ws, tick, baselineTick);
  }
}

/**
 * Reads an update's baseline tick (-1: absolute, NEWEST_HELD: the newest state held); fails the
 * stream unless an explicit tick is before `tick`.
 */
export function readBaseline(rs: ReadStream, tick: number, reference: number): number {
  if (rs.bits(0, 1) === 1) return reference;
  return rs.bits(0, 1) === 1 ? NEWEST_HELD : readExplicitBaseline(rs, tick);
}

/** `0`: against the zero state; `10` + 4 bits: 1..16 ticks back; `11` + 32 bits: that tick. */
function writeExplicitBaseline(ws: WriteStream, tick: number, baselineTick: number): void {
  ws.bits(baselineTick < 0 ? 0 : 1, 1);
  if (baselineTick >= 0) writeTickBefore(ws, tick, baselineTick);
}

/** Reads an explicit baseline tick (-1: absolute); fails the stream unless it is before `tick`. */
function readExplicitBaseline(rs: ReadStream, tick: number): number {
  if (rs.bits(0, 1) === 0) return -1;
  const baseline = readTickBefore(rs, tick);
  if (rs.ok && !(baseline >= 0 && baseline < tick)) rs.fail(`baseline tick ${baseline} not before ${tick}`);
  return baseline;
}
