/**
 * The input channel's wire format (both directions are one custom-channel entry each).
 *
 * Client → server (InputSender → InputReceiver), the inputs of ticks [last - count + 1, last]:
 *   tick     1 bit "full": 1 → uint32 `last`; 0 → its low 16 bits, read as the value nearest
 *            the receiver's newest tick (the sender writes full until a packet is acked and
 *            whenever `last` is 16384 or more past the newest acked tick, so it cannot alias)
 *   count    1 bit "≤ 16": 1 → 4 bits (count - 1); 0 → 8 bits (count - 17); 1..272 inputs
 *   each input, oldest first:
 *     value  the first: the schema's bits; the others: 1 bit "same as the one before"
 *            (1 → nothing more), else the schema's bits
 *     view   the view offset q = round((tick - viewTick) * 256), 0xffff = no view tick
 *            (held while it drifts by at most 2 quanta: see holdView);
 *            the first: 1 bit "none", else uint16; the others: 1 bit "same as the one
 *            before", else 1 bit "tiny" → 3 bits (change in [-4, 3] quanta), else 1 bit
 *            "small" → 7 bits (change in [-64, 63]), else uint16
 * An unchanged input with an unchanged view offset costs 2 bits; a packet of 8 such inputs after
 * a 20-bit input is 1 + 16 + 5 + 20 + 17 + 7 × 2 = 73 bits (57 without view ticks).
 *
 * Server → client (InputReceiver → InputSender), after each take: the newest pair (server tick,
 * input tick consumed) and the buffer's state:
 *   tick     the server tick, as above (full until a packet is acked)
 *   applied  1 bit "near": 1 → int8 (input tick - server tick); 0 → uint32 input tick
 *   depth    6 bits: the buffer depth in [-32, 31] (input ticks held past the one consumed;
 *            negative: the client's inputs arrive that many ticks late)
 *   target   4 bits: the depth the server aims at (bufferTicks, 0..15)
 * 1 + 16 + 1 + 8 + 6 + 4 = 36 bits a packet.
 */
import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';

/** Inputs a packet can carry (the count field's range). */
export const MAX_INPUTS_PER_PACKET = 272;
/** View offsets are in 1/256 tick; this value says the input has no view tick. */
export const VIEW_SCALE = 256;
export const NO_VIEW = 0xffff;
/** The largest view offset, ticks (the input tick minus the view tick). */
export const MAX_VIEW_OFFSET = (NO_VIEW - 1) / VIEW_SCALE;
/** Quanta a view offset may drift before it is sent again (see holdView). */
export const VIEW_HOLD = 2;
/** A tick past the newest acked one by this much or more is written in full. */
export const RELATIVE_TICK_SPAN = 16384;
export const MAX_TICK = 0xffffffff;
/**
 * The farthest an input tick may be from the server's newest tick, either side (docs/latency.md,
 * "Tick rules"): 32768 ticks, 9.1 min at 60 Hz. It bounds how far a client's cursor can run ahead
 * of the server's tick, so no cursor reaches the end of the uint32 range before the server does.
 */
export const TICK_REACH = 32768;
export const DEPTH_MIN = -32;
export const DEPTH_MAX = 31;
export const MAX_TARGET = 15;

/** Whether input tick `tick` is within TICK_REACH of server tick `serverTick`. */
export function withinReach(tick: number, serverTick: number): boolean {
  return tick >= serverTick - TICK_REACH && tick <= serverTick + TICK_REACH;
}

/** Bits `writeTick` takes. */
export function tickBits(tick: number, ackedTick: number): number {
  return ackedTick >= 0 && tick - ackedTick < RELATIVE_TICK_SPAN && tick >= ackedTick ? 17 : 33;
}

/** Writes a tick: its low 16 bits when the reader is known to hold `ackedTick` (see the format). */
export function writeTick(ws: WriteStream, tick: number, ackedTick: number): void {
  const relative = tickBits(tick, ackedTick) === 17;
  ws.bool(!relative);
  if (relative) ws.bits(tick & 0xffff, 16);
  else ws.uint32(tick);
}

/**
 * Reads a tick written by writeTick; `reference` is the reader's newest tick (-1: none, so only a
 * full tick is accepted). Returns -1 with `rs.fail` when bad.
 */
export function readTick(rs: ReadStream, reference: number): number {
  const full = rs.bool(false);
  if (!rs.ok) return -1;
  if (full) return rs.uint32(0);
  const low = rs.bits(0, 16);
  if (!rs.ok) return -1;
  if (reference < 0) {
    rs.fail('relative tick before any full tick');
    return -1;
  }
  // The value with these low bits nearest the reference.
  let tick = reference - (reference & 0xffff) + low;
  if (tick - reference > 32768) tick -= 65536;
  else if (reference - tick > 32768) tick += 65536;
  if (tick < 0 || tick > MAX_TICK) {
    rs.fail('relative tick out of range');
    return -1;
  }
  return tick;
}

export function countBits(count: number): number {
  return count <= 16 ? 5 : 9;
}

export function writeCount(ws: WriteStream, count: number): void {
  if (ws.bool(count <= 16)) ws.bits(count - 1, 4);
  else ws.int(count - 17, 0, 255);
}

/** 0 with `rs.fail` when bad. */
export function readCount(rs: ReadStream): number {
  const small = rs.bool(false);
  const count = small ? rs.bits(0, 4) + 1 : rs.int(0, 0, 255) + 17;
  return rs.ok ? count : 0;
}

/** The view offset of `viewTick` from `tick` in 1/256 tick (NO_VIEW for NaN). */
export function quantizeView(tick: number, viewTick: number): number {
  if (Number.isNaN(viewTick)) return NO_VIEW;
  return Math.round((tick - viewTick) * VIEW_SCALE);
}

/** The view tick a quantized offset stands for (NaN for NO_VIEW). */
export function viewTickOf(tick: number, q: number): number {
  return q === NO_VIEW ? Number.NaN : tick - q / VIEW_SCALE;
}

/**
 * The offset to send for `q` after the previous tick's `previous`: the previous one when within
 * VIEW_HOLD quanta, so a view drifting slowly against the input tick (clock sync trims both
 * clocks' rates) costs 1 bit most ticks; the error stays within VIEW_HOLD / 256 tick.
 */
export function holdView(q: number, previous: number): number {
  return q !== NO_VIEW && previous !== NO_VIEW && previous >= 0 && Math.abs(q - previous) <= VIEW_HOLD
    ? previous
    : q;
}

/** The change of a view offset that is "tiny" (3 bits) or "small" (7 bits). */
const tiny = (d: number) => d >= -4 && d <= 3;
const small = (d: number) => d >= -64 && d <= 63;

/** Bits the view offset `q` takes after `previous` (-1: the first of the packet). */
export function viewBits(q: number, previous: number): number {
  if (previous < 0) return q === NO_VIEW ? 1 : 17;
  if (q === previous) return 1;
  if (q === NO_VIEW || previous === NO_VIEW) return 19;
  const d = q - previous;
  return tiny(d) ? 5 : small(d) ? 10 : 19;
}

export function writeView(ws: WriteStream, q: number, previous: number): void {
  if (previous >= 0) {
    if (ws.bool(q === previous)) return;
    const d = q !== NO_VIEW && previous !== NO_VIEW ? q - previous : NO_VIEW;
    if (ws.bool(tiny(d))) {
      ws.int(d, -4, 3);
      return;
    }
    if (ws.bool(small(d))) {
      ws.int(d, -64, 63);
      return;
    }
  } else if (ws.bool(q === NO_VIEW)) return;
  ws.uint16(q);
}

/** The view offset after `previous` (-1: the first); -1 with `rs.fail` when bad. */
export function readView(rs: ReadStream, previous: number): number {
  if (previous >= 0) {
    if (rs.bool(false)) return rs.ok ? previous : -1;
    const isTiny = rs.bool(false);
    if (isTiny || rs.bool(false)) {
      const q = previous + (isTiny ? rs.int(0, -4, 3) : rs.int(0, -64, 63));
      if (rs.ok && (previous === NO_VIEW || q < 0 || q >= NO_VIEW))
        rs.fail('view offset change out of range');
      return rs.ok ? q : -1;
    }
  } else if (rs.bool(false)) return rs.ok ? NO_VIEW : -1;
  // After a "none" flag of 0 an offset of NO_VIEW is still read as none: both mean the same.
  const q = rs.uint16(0);
  return rs.ok ? q : -1;
}

/** Bits of the server's feedback entry. */
export function feedbackBits(serverTick: number, ackedTick: number, inputTick: number): number {
  const d = inputTick - serverTick;
  return tickBits(serverTick, ackedTick) + 1 + (d >= -128 && d <= 127 ? 8 : 32) + 6 + 4;
}

export function writeFeedback(
  ws: WriteStream,
  serverTick: number,
  ackedTick: number,
  inputTick: number,
  depth: number,
  target: number,
): void {
  writeTick(ws, serverTick, ackedTick);
  const d = inputTick - serverTick;
  if (ws.bool(d >= -128 && d <= 127)) ws.int(d, -128, 127);
  else ws.uint32(inputTick);
  ws.int(Math.max(DEPTH_MIN, Math.min(DEPTH_MAX, depth)), DEPTH_MIN, DEPTH_MAX);
  ws.int(target, 0, MAX_TARGET);
}

/** What a feedback entry says. */
export interface Feedback {
  serverTick: number;
  inputTick: number;
  depth: number;
  target: number;
}

/** Reads a feedback entry into `out`; false with `rs.fail` when bad. */
export function readFeedback(rs: ReadStream, reference: number, out: Feedback): boolean {
  const serverTick = readTick(rs, reference);
  if (!rs.ok) return false;
  const near = rs.bool(false);
  const inputTick = near ? serverTick + rs.int(0, -128, 127) : rs.uint32(0);
  const depth = rs.int(0, DEPTH_MIN, DEPTH_MAX);
  const target = rs.int(0, 0, MAX_TARGET);
  if (!rs.ok) return false;
  if (inputTick < 0 || inputTick > MAX_TICK) {
    rs.fail('applied input tick out of range');
    return false;
  }
  out.serverTick = serverTick;
  out.inputTick = inputTick;
  out.depth = depth;
  out.target = target;
  return true;
}
