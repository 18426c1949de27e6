/**
 * The small encodings zone-wire.ts builds its messages from (docs/zones-wire.md): the header,
 * counts, world ids, ticks, view ticks and JSON text, each a writer that checks its value and
 * throws naming nothing but the value (the caller adds the field), and a reader that never throws
 * and fails the stream with a reason. Limits are exported: they are part of the format.
 */
import { bitsRequired } from '../bits/bits-required.js';
import type { ReadStream } from '../serialize/read-stream.js';
import { checkedUtf8Length, utf8Read } from '../serialize/utf8.js';
import type { WriteStream } from '../serialize/write-stream.js';
import { worldIdProblem } from './world-id-allocator.js';

/** The format version every zone message carries after its kind; a reader refuses any other. */
export const ZONE_WIRE_VERSION = 1;

/** The first byte of each message. */
export const ZONE_MESSAGE_KINDS = Object.freeze({
  gatewayBatch: 1,
  feedBatch: 2,
  entityRecord: 3,
  zoneSnapshot: 4,
});
export type ZoneMessageKind = (typeof ZONE_MESSAGE_KINDS)[keyof typeof ZONE_MESSAGE_KINDS];
const KIND_NAMES = ['', 'gateway batch', 'feed batch', 'entity record', 'zone snapshot'];

/** Players joining, and players leaving, in one gateway batch (each list). */
export const MAX_BATCH_PLAYERS = 4096;
/** Inputs in one gateway batch (a few ticks of every player of a busy gateway). */
export const MAX_BATCH_INPUTS = 16384;
/** Player messages in one gateway batch. */
export const MAX_BATCH_MESSAGES = 4096;
/** Entities in one feed batch (a game's ServerWorld holds at most 65,536). */
export const MAX_FEED_ENTITIES = 65536;
/** Removed world ids in one feed batch. */
export const MAX_FEED_REMOVED = 65536;
/** Player owners in one feed batch. */
export const MAX_FEED_OWNERS = 65536;
/** Events in one feed batch. */
export const MAX_FEED_EVENTS = 4096;
/** Pending inputs a player carries through a handoff or a snapshot. */
export const MAX_PENDING_INPUTS = 64;
/** UTF-8 bytes of one entity's or player's `data`. */
export const MAX_JSON_BYTES = 4096;
/** UTF-8 bytes of a snapshot's `gameData` (one per zone, so it may hold more than an entity's). */
export const MAX_GAME_DATA_BYTES = 65536;
/** Entities, and players without one, in one snapshot (each list). */
export const MAX_SNAPSHOT_ENTITIES = 65536;
export const MAX_SNAPSHOT_PLAYERS = 65536;
/** The largest `sinceHandoffTicks` (callers cap it; any value past the dwell means "free to go"). */
export const MAX_SINCE_HANDOFF_TICKS = 0xffff;
/** Ticks, epochs, handoff sequences, player and gateway ids are uint32 on the wire. */
export const MAX_UINT32 = 0xffff_ffff;

export type WireResult<T> = { ok: true; value: T } | { ok: false; reason: string };

export const isUint32 = (v: unknown): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= MAX_UINT32;

/** Throws a RangeError naming `field` unless `value` is a uint32. */
export function checkUint32(value: unknown, field: string): void {
  if (!isUint32(value))
    throw new RangeError(`${field}: ${String(value)} is not an integer in 0..${MAX_UINT32}`);
}

/** Throws a TypeError naming `field` unless `value` is an array. */
export function checkArray(value: unknown, field: string): asserts value is readonly unknown[] {
  if (!Array.isArray(value)) throw new TypeError(`${field}: must be an array`);
}

/** Kind, version and the game's tag: 8 + 8 + 32 bits. */
export function writeHeader(ws: WriteStream, kind: ZoneMessageKind, gameTag: number): void {
  ws.bits(kind, 8);
  ws.bits(ZONE_WIRE_VERSION, 8);
  ws.uint32(gameTag);
}

/** False, with a reason, unless the header is `kind`'s at this version from the same game. */
export function readHeader(rs: ReadStream, kind: ZoneMessageKind, gameTag: number): boolean {
  if (rs.bitsRemaining < 16) {
    rs.fail(`${rs.bitsRemaining >>> 3} bytes is shorter than the 2-byte header`);
    return false;
  }
  const got = rs.bits(0, 8);
  if (got !== kind) {
    rs.fail(
      `message kind ${got} (${KIND_NAMES[got] || 'unknown'}) where a ${KIND_NAMES[kind]} (${kind}) was expected`,
    );
    return false;
  }
  const version = rs.bits(0, 8);
  if (version !== ZONE_WIRE_VERSION) {
    rs.fail(`format version ${version}, this reader knows ${ZONE_WIRE_VERSION} only`);
    return false;
  }
  const tag = rs.uint32(0);
  if (rs.ok && tag !== gameTag)
    rs.fail(`game tag ${tag} is not this game's ${gameTag} (another game or game version)`);
  return rs.ok;
}

/** A list's length as an int in [0, max]. */
export function writeCount(ws: WriteStream, count: number, max: number, field: string): void {
  if (count > max) throw new RangeError(`${field}: ${count} items, the limit is ${max}`);
  ws.int(count, 0, max);
}

/**
 * A list's length, or -1 with a reason: past `max`, or more items of at least `minItemBits` each
 * than the bits left could hold (so no count makes a reader loop past its input).
 */
export function readCount(rs: ReadStream, max: number, minItemBits: number): number {
  const count = rs.bits(0, bitsRequired(0, max));
  if (!rs.ok) return -1;
  if (count > max) {
    rs.fail(`count ${count} is over the limit ${max}`);
    return -1;
  }
  if (count * minItemBits > rs.bitsRemaining) {
    rs.fail(`count ${count} needs at least ${count * minItemBits} bits, ${rs.bitsRemaining} are left`);
    return -1;
  }
  return count;
}

/** Gaps of 1..32 skipped ids after the previous world id take the short form. */
const GAP_BITS = 5;
const GAP_MAX = 1 << GAP_BITS;

/**
 * A world id after the previous one of its list (-1 before the first): `1` the next id; `01` +
 * 5 bits g: previous + 2 + g; `00` + 32 bits: the id. Lists keep their order; ids a zone mints in
 * a row cost 1 bit each.
 */
export function writeWorldIdAfter(ws: WriteStream, previous: number, worldId: number): void {
  const gap = worldId - previous - 1;
  if (gap === 0) ws.bits(1, 1);
  else if (gap > 0 && gap <= GAP_MAX) {
    ws.bits(0b10, 2);
    ws.bits(gap - 1, GAP_BITS);
  } else {
    ws.bits(0, 2);
    ws.uint32(worldId);
  }
}

/** Reads what writeWorldIdAfter wrote; -1 with a reason when it is not a world id below `zoneLimit`. */
export function readWorldIdAfter(rs: ReadStream, previous: number, zoneLimit: number): number {
  let id = previous + 1;
  if (rs.bits(0, 1) === 0) {
    const short = rs.bits(0, 1) === 1;
    id = short ? previous + 2 + rs.bits(0, GAP_BITS) : rs.uint32(0);
  }
  if (!rs.ok) return -1;
  const problem = worldIdProblem(id, zoneLimit);
  if (problem !== null) {
    rs.fail(problem);
    return -1;
  }
  return id;
}

/** Reads a full world id, or -1 with a reason. */
export function readWorldId(rs: ReadStream, zoneLimit: number): number {
  const id = rs.uint32(0);
  if (!rs.ok) return -1;
  const problem = worldIdProblem(id, zoneLimit);
  if (problem !== null) {
    rs.fail(problem);
    return -1;
  }
  return id;
}

/** Throws a RangeError naming `field` unless `worldId` is one a zone below `zoneLimit` mints. */
export function checkWorldId(worldId: unknown, zoneLimit: number, field: string): void {
  const problem = worldIdProblem(worldId, zoneLimit);
  if (problem !== null) throw new RangeError(`${field}: ${problem}`);
}

/** A tick near a reference: `1` + 8 bits (tick − reference in [−128, 127]); `0` + 32 bits. */
export function writeTickNear(ws: WriteStream, tick: number, reference: number): void {
  const d = tick - reference;
  if (ws.bool(d >= -128 && d <= 127)) ws.int(d, -128, 127);
  else ws.uint32(tick);
}

/** Reads what writeTickNear wrote; -1 with a reason when it leaves the uint32 range. */
export function readTickNear(rs: ReadStream, reference: number): number {
  const tick = rs.bool(false) ? reference + rs.int(0, -128, 127) : rs.uint32(0);
  if (!rs.ok) return -1;
  if (tick < 0 || tick > MAX_UINT32) {
    rs.fail(`tick ${tick} is outside 0..${MAX_UINT32}`);
    return -1;
  }
  return tick;
}

/** View offsets are in 1/256 tick. */
const VIEW_SCALE = 256;
const MAX_VIEW_OFFSET = 0xffff;

/**
 * An input's view tick (NaN: none), exactly: `0` none; `10` + 16 bits q: tick − q / 256 (what
 * the input channel's 1/256-tick offsets give); `11` + 64 bits: any other finite value.
 */
export function writeViewTick(ws: WriteStream, tick: number, viewTick: number, field: string): void {
  if (typeof viewTick !== 'number') throw new RangeError(`${field}: ${String(viewTick)} is not a number`);
  if (ws.bool(!Number.isNaN(viewTick)) === false) return;
  if (!Number.isFinite(viewTick))
    throw new RangeError(`${field}: ${viewTick} is not finite (NaN means none)`);
  const q = (tick - viewTick) * VIEW_SCALE;
  // tick - q / 256 is never -0: a view tick of -0 takes the full form, so it reads back as -0.
  const short =
    Number.isInteger(q) &&
    q >= 0 &&
    q <= MAX_VIEW_OFFSET &&
    tick - q / VIEW_SCALE === viewTick &&
    !Object.is(viewTick, -0);
  ws.bool(!short);
  if (short) ws.uint16(q);
  else ws.float64(viewTick);
}

/** Reads what writeViewTick wrote: NaN for none; -Infinity with a reason for a non-finite value. */
export function readViewTick(rs: ReadStream, tick: number): number {
  if (!rs.bool(false)) return Number.NaN;
  if (!rs.bool(false)) return tick - rs.uint16(0) / VIEW_SCALE;
  const value = rs.float64(0);
  if (rs.ok && !Number.isFinite(value)) {
    rs.fail(`view tick ${value} is not finite (none has its own form)`);
    return Number.NEGATIVE_INFINITY;
  }
  return value;
}

/** Why `text` is not JSON text of an object, or null. Never throws. */
export function jsonObjectProblem(text: string): string | null {
  // The common empty data needs no parse.
  if (text === '{}') return null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return 'is not JSON';
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'is JSON but not an object';
  return null;
}

/**
 * JSON text of an object, of at most `maxBytes` UTF-8 bytes: the byte length as an int in
 * [0, maxBytes], aligned, then the bytes (serialize's string).
 */
export function writeJson(ws: WriteStream, text: string, maxBytes: number, field: string): void {
  if (typeof text !== 'string') throw new TypeError(`${field}: must be JSON text (a string)`);
  const problem = jsonObjectProblem(text);
  if (problem !== null) throw new RangeError(`${field}: ${JSON.stringify(text.slice(0, 40))} ${problem}`);
  try {
    checkedUtf8Length(text, maxBytes);
  } catch (error) {
    throw new RangeError(`${field}: ${(error as Error).message}`);
  }
  ws.string(text, maxBytes);
}

/** Reads what writeJson wrote; '' with a reason when too long, not UTF-8, or not a JSON object. */
export function readJson(rs: ReadStream, maxBytes: number): string {
  const length = rs.bits(0, bitsRequired(0, maxBytes));
  if (!rs.ok) return '';
  if (length > maxBytes) {
    rs.fail(`JSON text of ${length} bytes is longer than the limit ${maxBytes}`);
    return '';
  }
  const bytes = rs.bytes(EMPTY, length);
  if (!rs.ok) return '';
  const text = utf8Read(bytes, 0, length);
  if (text === null) {
    rs.fail('JSON text is not UTF-8 (or holds a NUL byte)');
    return '';
  }
  const problem = jsonObjectProblem(text);
  if (problem !== null) {
    rs.fail(`JSON text ${problem}`);
    return '';
  }
  return text;
}

const EMPTY = new Uint8Array(0);
