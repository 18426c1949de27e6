import { crc32 } from '../../serialize/crc32.js';

/**
 * The .gwr replay file's layout (docs/replay-format.md), shared by the writer (Recorder) and the
 * hostile reader (ReplayFile) so they cannot drift apart. Little-endian, byte-aligned; the ghost
 * sections inside frames are bit-packed as on the wire.
 */

export const FORMAT_VERSION = 1;
export const HEADER_MAGIC = 0x50525747; // "GWRP"
export const CHUNK_MAGIC = 0x43525747; // "GWRC"
export const INDEX_MAGIC = 0x49525747; // "GWRI"
export const END_MAGIC = 0x45525747; // "GWRE"
/** Header bytes before the game name: magic, format, header bytes, fingerprint, tick rate, capacity, keyframe ticks, start tick, name length. */
export const HEADER_FIXED_BYTES = 4 + 2 + 2 + 4 + 2 + 4 + 2 + 4 + 1;
export const MAX_NAME_BYTES = 64;
/** Chunk head: magic, body bytes, first tick, last tick, frames, body CRC. */
export const CHUNK_HEAD_BYTES = 4 + 4 + 4 + 4 + 2 + 4;
/** Index entry: first tick, last tick, offset. */
export const INDEX_ENTRY_BYTES = 12;
/** Footer: index offset, "GWRE", index CRC. */
export const FOOTER_BYTES = 12;
/** Frames a chunk may hold (its count is a u16). */
export const MAX_CHUNK_FRAMES = 0xffff;

/** What a file's header says. */
export interface ReplayHeader {
  /** The configuration fingerprint of the world recorded (configurationHash). */
  readonly configuration: number;
  readonly tickRate: number;
  readonly capacity: number;
  /** Ticks between keyframes (each chunk starts with one). */
  readonly keyframeTicks: number;
  /** The first tick meant to be shown (a clip may start its first chunk earlier, at a keyframe). */
  readonly startTick: number;
  /** A name the recorder was given (at most 64 UTF-8 bytes). */
  readonly name: string;
}

/** One chunk: a keyframe section, then one section per tick, each frame's bytes in `body`. */
export interface ReplayChunk {
  readonly firstTick: number;
  readonly lastTick: number;
  readonly frames: number;
  /** Frames: tick delta (uvarint; the first is 0, at firstTick), section bytes (uvarint), the section. */
  readonly body: Uint8Array;
}

const utf8 = new TextEncoder();

/** The bytes of a whole file: header, chunks in tick order, index, footer. */
export function encodeReplay(header: ReplayHeader, chunks: readonly ReplayChunk[]): Uint8Array {
  const name = utf8.encode(header.name);
  if (name.length > MAX_NAME_BYTES)
    throw new RangeError(`replay: name must take at most ${MAX_NAME_BYTES} UTF-8 bytes, got ${name.length}`);
  const headerBytes = HEADER_FIXED_BYTES + name.length + 4;
  let total = headerBytes + FOOTER_BYTES + 8 + chunks.length * INDEX_ENTRY_BYTES;
  for (const c of chunks) total += CHUNK_HEAD_BYTES + c.body.length;
  const out = new Uint8Array(total);
  const v = new DataView(out.buffer);
  v.setUint32(0, HEADER_MAGIC, true);
  v.setUint16(4, FORMAT_VERSION, true);
  v.setUint16(6, headerBytes, true);
  v.setUint32(8, header.configuration >>> 0, true);
  v.setUint16(12, header.tickRate, true);
  v.setUint32(14, header.capacity, true);
  v.setUint16(18, header.keyframeTicks, true);
  v.setUint32(20, header.startTick >>> 0, true);
  v.setUint8(24, name.length);
  out.set(name, HEADER_FIXED_BYTES);
  v.setUint32(headerBytes - 4, crc32(out, 0, headerBytes - 4), true);
  let at = headerBytes;
  const offsets: number[] = [];
  for (const c of chunks) {
    offsets.push(at);
    v.setUint32(at, CHUNK_MAGIC, true);
    v.setUint32(at + 4, c.body.length, true);
    v.setUint32(at + 8, c.firstTick >>> 0, true);
    v.setUint32(at + 12, c.lastTick >>> 0, true);
    v.setUint16(at + 16, c.frames, true);
    v.setUint32(at + 18, crc32(c.body), true);
    out.set(c.body, at + CHUNK_HEAD_BYTES);
    at += CHUNK_HEAD_BYTES + c.body.length;
  }
  const indexAt = at;
  v.setUint32(at, INDEX_MAGIC, true);
  v.setUint32(at + 4, chunks.length, true);
  at += 8;
  chunks.forEach((c, i) => {
    v.setUint32(at, c.firstTick >>> 0, true);
    v.setUint32(at + 4, c.lastTick >>> 0, true);
    v.setUint32(at + 8, offsets[i], true);
    at += INDEX_ENTRY_BYTES;
  });
  const indexCrc = crc32(out, indexAt, at);
  v.setUint32(at, indexAt, true);
  v.setUint32(at + 4, END_MAGIC, true);
  v.setUint32(at + 8, indexCrc, true);
  return out;
}
