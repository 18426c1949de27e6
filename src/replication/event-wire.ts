import type { ReadStream } from '../serialize/read-stream.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { type AnyEventType, payloadLengthBits } from './event.js';
import { readTickBefore, tickBeforeBits, writeTickBefore } from './ghost-wire.js';

/**
 * The events part of a ghost section (docs/replication.md, "Wire format: events"), shared by the
 * server's writer and the client's reader so the two cannot drift apart.
 */

/** Bits of a reliable event's sequence number (it wraps). */
export const SEQUENCE_BITS = 16;
export const SEQUENCE_MASK = 0xffff;
/**
 * Reliable events a client may be sent ahead of the next one it delivers: the server never has
 * more than this many unacked or queued per client, and a client refuses a sequence further ahead.
 */
export const RELIABLE_WINDOW = 256;
/** Unreliable events a client remembers, to drop a packet's copy it already dispatched. */
export const UNRELIABLE_MEMORY = 256;
/** Bits of an event's tick: `0` the section's; `10` + 4 bits, 1..16 before it; `11` + 32 bits. */
export function eventTickBits(sectionTick: number, tick: number): number {
  return tick === sectionTick ? 1 : 1 + tickBeforeBits(sectionTick, tick);
}

export function writeEventTick(ws: WriteStream, sectionTick: number, tick: number): void {
  ws.bits(tick === sectionTick ? 0 : 1, 1);
  if (tick !== sectionTick) writeTickBefore(ws, sectionTick, tick);
}

/** Reads an event's tick; fails the stream unless it is in [1, sectionTick]. */
export function readEventTick(rs: ReadStream, sectionTick: number): number {
  if (rs.bits(0, 1) === 0) return sectionTick;
  const tick = readTickBefore(rs, sectionTick);
  if (rs.ok && !(tick >= 1 && tick <= sectionTick)) rs.fail(`event tick ${tick} not in [1, ${sectionTick}]`);
  return tick;
}

/** Bits of a payload as written: the fixed bits, or the byte length and the bytes. */
export function payloadBits(type: AnyEventType, bytes: Uint8Array): number {
  return type.fixedBits >= 0 ? type.fixedBits : payloadLengthBits(type) + bytes.length * 8;
}

/**
 * Writes a payload encoded once (`codec.encode`, standalone): a fixed-size one as its bits (with
 * no align inside, they are what the codec writes in place), a variable one as its byte length
 * and bytes (it is decoded standalone, so its aligns stay where the encoding put them).
 */
export function writePayload(ws: WriteStream, type: AnyEventType, bytes: Uint8Array): void {
  let bits = type.fixedBits;
  if (bits < 0) {
    ws.int(bytes.length, 0, type.maxBytes);
    bits = bytes.length * 8;
  }
  let i = 0;
  for (; bits >= 8; bits -= 8) ws.bits(bytes[i++], 8);
  if (bits > 0) ws.bits(bytes[i] & ((1 << bits) - 1), bits);
}

/** Reads a payload into a new value, or null (the stream failed with a reason). */
export function readPayload(rs: ReadStream, type: AnyEventType, scratch: { bytes: Uint8Array }): unknown {
  if (type.fixedBits >= 0) {
    const value = type.codec.read(rs);
    if (value === null && rs.ok) rs.fail(`event ${type.name}: bad payload`);
    return value;
  }
  const length = rs.int(0, 0, type.maxBytes);
  if (!rs.ok) return null;
  if (length * 8 > rs.bitsRemaining) {
    rs.fail(`event ${type.name}: payload past the end`);
    return null;
  }
  if (scratch.bytes.length < length)
    scratch.bytes = new Uint8Array(Math.max(length, scratch.bytes.length * 2));
  const bytes = scratch.bytes;
  for (let i = 0; i < length; i++) bytes[i] = rs.bits(0, 8);
  const decoded = type.codec.decode(bytes.subarray(0, length));
  if (!decoded.ok) {
    rs.fail(`event ${type.name}: ${decoded.error}`);
    return null;
  }
  return decoded.value;
}
